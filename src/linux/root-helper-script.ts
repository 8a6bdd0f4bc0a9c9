/**
 * The text of cdktf-homelab-root, the one program a non-root SSH user runs as root (root-helper.ts
 * says how it is sent and installed). POSIX sh, so it runs wherever systemd does with nothing to
 * install but itself. It checks every step of a request before it runs any, and makes every path it
 * touches from unit names and directories it checked, so a sudoers line naming it grants these steps
 * and no others: not a shell, not a file outside the unit directories and the stack's state.
 * Edit it as sh inside template literals (\\ for a backslash, \${ for an expansion); shellcheck -s sh
 * finds nothing in what `npx cdktf-homelab root-helper` prints, and the unit test parses it with sh -n.
 */

import { ROOT_HELPER_FILES } from './root-helper-files';
import { ROOT_HELPER_REQUEST } from './root-helper-request';
import { ROOT_HELPER_STEPS } from './root-helper-steps';
import { ROOT_HELPER_TRACES } from './root-helper-traces';
import { STATE_DIR, STATE_FOLDERS } from './state-paths';
import { helperDirsLines } from './unit-directories';

/** Its opening comment: what it is, for whoever reads it on the host. */
/** The most characters an intent's or a record's words may hold (the helper's `words` check). */
export const HELPER_TEXT_MAX = 1024;

export const ROOT_HELPER_HEAD = `# cdktf-homelab-root: the privileged steps of cdktf-homelab's systemd kinds
# (SystemdUnit, SystemdUnitInstance, SystemdDropIn), for a sudoers line naming this file alone:
#   <user> ALL=(root) NOPASSWD: /usr/local/sbin/cdktf-homelab-root
# Install it root-owned from the cdktf-homelab your stack runs (its version must match):
#   npx cdktf-homelab root-helper |
#     ssh root@<host> 'install -m 0755 -o root -g root /dev/stdin /usr/local/sbin/cdktf-homelab-root'
# It reads one request on stdin: "cdktf-homelab-root <version>", then one step per line (a fixed verb
# and its arguments), then "end", then the files of its write steps back to back. It checks every
# step before it runs any, and makes every path it touches from the unit names and directories it
# checked: unit files and drop-ins in systemd's unit directories, the links enable made to them, and
# the stack's records and intents under /var/lib/cdktf-homelab (and, root's alone, kept/: the file a
# write replaced, until its apply is done, for a failed apply's undo to put back as it was while the file
# is still the one that apply wrote). A step
# outside these rules is refused, named, before anything is done (exit 64); a request of another
# version is refused (exit 65).
`;

/** Its settings, how it fails, and the checks each argument meets before any step runs. */
const ROOT_HELPER_CHECKS = `\
export LC_ALL=C PATH=/usr/sbin:/usr/bin:/sbin:/bin
umask 022
set -f
IFS=' '
NL='
'
ME=cdktf-homelab-root
STATE=${STATE_DIR}
RECORDS=$STATE/${STATE_FOLDERS.restartOn}
MARKS=$STATE/${STATE_FOLDERS.dropInMarks}
INTENTS=$STATE/${STATE_FOLDERS.intents}
KEPT=$STATE/${STATE_FOLDERS.kept}
ADMIN=/etc/systemd/system
TYPES='service socket device mount automount swap target path timer slice scope'
${helperDirsLines()}
STEPS='systemctl reload unmask write-unit write-drop-in remove-unit destroy-unit remove-drop-in forget-drop-in'
STEPS="$STEPS intent-unit intent-drop-in record-unit record-drop-in clear-unit-intent clear-drop-in-intent"
STEPS="$STEPS restore-unit restore-drop-in unlink journal list-jobs"

tmp='' n=''
trap '[ -z "$tmp" ] || rm -f -- "$tmp"; [ -z "$n" ] || rm -rf -- "$n"; unstage' EXIT
trap 'exit 1' HUP INT TERM PIPE

# The request's own text in a message: at most 80 bytes, anything but plain characters shown as ?.
shown() { printf '%.80s' "$1" | tr -c 'A-Za-z0-9 ._:@/=+-' '?'; }
fail() {
  printf '%s: %s\\n' "$ME" "$1" >&2
  exit "\${2:-1}"
}
refuse() { fail "step $step ($(shown "$line")) refused: $1; nothing was done" 64; }

# The checks. Each refuses naming the rule its argument broke, or sets what the argument makes.
unit() {
  u=$1 s=\${1%.*} t=\${1##*.}
  case $1 in *.*) ;; *) refuse "$2 must be a unit name ending in a unit type (.service, .timer, ...)" ;; esac
  case " $TYPES " in *" $t "*) ;; *) refuse "$2 must be a unit name ending in one of the unit types ($TYPES)" ;; esac
  [ \${#1} -le 255 ] || refuse "$2 must be a unit name of at most 255 characters"
  case $s in '' | *[!A-Za-z0-9:_.@\\\\-]*) refuse "$2 must be a unit name of letters, digits and : _ . \\\\ - @" ;; esac
  case $s in
  [-.]*) refuse "$2 must be a unit name that starts with neither - nor ." ;;
  @*) refuse "$2 must be a unit name with a template prefix before @" ;;
  esac
}
dir() {
  case " $DIRS " in *" \${1%/} "*) d=\${1%/} ;; *) refuse "$2 must be one of systemd's unit directories ($DIRS)" ;; esac
}
dropin() {
  dir "$1" 'the directory'
  unit "$2" 'the unit'
  case $3 in
  '' | .* | *[!A-Za-z0-9_.@-]*) refuse 'the drop-in name must be letters, digits and _ . @ - with no leading dot' ;;
  esac
  [ \${#3} -le 100 ] || refuse 'the drop-in name must be at most 100 characters'
  p=$d/$2.d/$3.conf
}
words() {
  [ $# -ge 1 ] || refuse 'the text must be one or more words'
  for w in "$@"; do
    case $w in *[!A-Za-z0-9=_.:@\\\\-]*) refuse 'the text must be words of letters, digits and = _ . : @ \\ -' ;; esac
  done
  x=$*
  [ \${#x} -le ${HELPER_TEXT_MAX} ] || refuse 'the text must be at most ${HELPER_TEXT_MAX} characters'
}
takes() { [ "$1" -eq "$2" ] || refuse "$verb takes $3"; }

`;

/** Everything after its version line: the checks, the file steps, the verbs and the request loop, in that order. */
export const ROOT_HELPER_BODY = [
  ROOT_HELPER_CHECKS,
  ROOT_HELPER_FILES,
  ROOT_HELPER_TRACES,
  ROOT_HELPER_STEPS,
  ROOT_HELPER_REQUEST,
].join('');
