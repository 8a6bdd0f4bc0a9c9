/**
 * The text of cdktf-homelab-root, the one program a non-root SSH user runs as root (root-helper.ts
 * says how it is sent and installed). POSIX sh, so it runs wherever systemd does with nothing to
 * install but itself. It checks every step of a request before it runs any, and makes every path it
 * touches from unit names and directories it checked, so a sudoers line naming it grants these steps
 * and no others: not a shell, not a file outside the unit directories and the stack's state.
 * Edit it as sh inside template literals (\\ for a backslash, \${ for an expansion); shellcheck -s sh
 * finds nothing in what `npx cdktf-homelab root-helper` prints, and the unit test parses it with sh -n.
 */

/** Its opening comment: what it is, for whoever reads it on the host. */
export const ROOT_HELPER_HEAD = `# cdktf-homelab-root: the privileged steps of cdktf-homelab's systemd kinds
# (SystemdUnit, SystemdUnitInstance, SystemdDropIn), for a sudoers line naming this file alone:
#   <user> ALL=(root) NOPASSWD: /usr/local/sbin/cdktf-homelab-root
# Install it root-owned from the cdktf-homelab your stack runs (its version must match):
#   npx cdktf-homelab root-helper |
#     ssh root@<host> 'install -m 0755 -o root -g root /dev/stdin /usr/local/sbin/cdktf-homelab-root'
# It reads one request on stdin: "cdktf-homelab-root <version>", then one step per line (a fixed verb
# and its arguments), then "end", or a write step last with the file's bytes after it. It checks every
# step before it runs any, and makes every path it touches from the unit names and directories it
# checked: unit files and drop-ins in systemd's unit directories, the links enable made to them, and
# the stack's records and intents under /var/lib/cdktf-homelab. A step outside these rules is refused,
# named, before anything is done (exit 64); a request of another version is refused (exit 65).
`;

/** Everything after its version line. */
export const ROOT_HELPER_BODY = `export LC_ALL=C PATH=/usr/sbin:/usr/bin:/sbin:/bin
umask 022
set -f
IFS=' '
NL='
'
ME=cdktf-homelab-root
STATE=/var/lib/cdktf-homelab
RECORDS=$STATE/restart-on
MARKS=$STATE/drop-ins
INTENTS=$STATE/intents
ADMIN=/etc/systemd/system
TYPES='service socket device mount automount swap target path timer slice scope'
DIRS='/etc/systemd/system /etc/systemd/system.control /etc/systemd/system.attached /run/systemd/system'
DIRS="$DIRS /run/systemd/system.control /run/systemd/system.attached /usr/local/lib/systemd/system"
DIRS="$DIRS /usr/lib/systemd/system /lib/systemd/system"
STEPS='systemctl reload unmask write-unit write-drop-in remove-unit destroy-unit remove-drop-in forget-drop-in'
STEPS="$STEPS intent-unit intent-drop-in record-unit record-drop-in clear-unit-intent clear-drop-in-intent"
STEPS="$STEPS journal list-jobs"

tmp='' n=''
trap '[ -z "$tmp" ] || rm -f -- "$tmp"; [ -z "$n" ] || rm -rf -- "$n"' EXIT
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
  [ \${#x} -le 1024 ] || refuse 'the text must be at most 1024 characters'
}
takes() { [ "$1" -eq "$2" ] || refuse "$verb takes $3"; }

# Intents and records: every file of the request written into a staging directory on the same file
# system, then renamed over its target (rename is atomic), one mv per directory; removals after them.
staged='' removed='' intents=''
stage() {
  k=$1 f=$2
  shift 2
  staged=$staged$k' '$f' '$*$NL
  [ "$k" = r ] || intents=1
}
install_staged() {
  dirs=
  IFS=$NL
  for e in $staged; do
    f=\${e#? } f=\${f%% *}
    case $NL$dirs in *"$NL\${f%/*}$NL"*) ;; *) dirs=$dirs\${f%/*}$NL ;; esac
  done
  # shellcheck disable=SC2086 # one directory a line, split on purpose (set -f: no globbing)
  set -- $dirs
  IFS=' '
  mkdir -p -- "$STATE" "$@" || return 1
  [ -z "$intents" ] || chmod -R a+rX,go-w -- "$INTENTS" || return 1
  n=$(mktemp -d "$STATE/.new.XXXXXX") || return 1
  i=0
  for e in "$@"; do
    i=$((i + 1))
    set -- "$@" "$n/$i"
  done
  shift $i
  mkdir -- "$@" || return 1
  now=$(date -u +%s)
  IFS=$NL
  for e in $staged; do
    k=\${e%% *} f=\${e#? } x=\${e#? * }
    f=\${f%% *} i=0
    for g in $dirs; do
      i=$((i + 1))
      [ "$g" = "\${f%/*}" ] && break
    done
    if [ "$k" = i ]; then
      printf 'cdktf-homelab-intent since=%s %s\\n' "$now" "$x" >"$n/$i/\${f##*/}" || return 1
    else
      printf '%s\\n' "$x" >"$n/$i/\${f##*/}" || return 1
    fi
  done
  i=0
  for e in $dirs; do
    i=$((i + 1))
    set +f
    set -- "$n/$i"/*
    set -f
    mv -f -- "$@" "$e/" || return 1
  done
  IFS=' '
  rm -rf -- "$n"
  n='' staged='' intents=''
}
flush() {
  [ -z "$staged" ] || install_staged || exit 1
  [ -n "$removed" ] || return 0
  IFS=$NL
  # shellcheck disable=SC2086 # one path a line, split on purpose (set -f: no globbing)
  set -- $removed
  IFS=' '
  removed=
  rm -f -- "$@" || exit 1
}

# A file written whole or not at all: its bytes (the rest of the request) go to a temp file in the same
# directory, renamed over the file only when their digest is the one the request named. A writer killed
# mid-stream closes the request early; the trap removes the temp file. mv -T: a directory of that name
# is refused, never entered.
write_file() {
  mkdir -p -- "$1" && tmp=$(mktemp -p "$1" ".\${2##*/}.XXXXXX") || exit 1
  cat >"$tmp" || exit 1
  # shellcheck disable=SC2046 # the digest and "-", split on purpose
  set -- "$@" $(sha256sum <"$tmp")
  if [ "$5" != "$3" ]; then
    echo "$2 not written: $(wc -c <"$tmp") bytes arrived, not the $4 sent (cut short)" >&2
    exit 1
  fi
  chmod 0644 "$tmp" && mv -f -T -- "$tmp" "$2" && tmp=
}
digest() {
  case $1 in *[!0-9a-f]*) refuse 'the digest must be 64 lowercase hex digits' ;; esac
  [ \${#1} -eq 64 ] || refuse 'the digest must be 64 lowercase hex digits'
  case $2 in '' | *[!0-9]* | 0?* | ??????????*) refuse 'the size must be a number of bytes below 10^9' ;; esac
}

# Where a mask of the unit can be: its own directory, then the admin and runtime directories.
masks() {
  m="$1/$2"
  for f in "$ADMIN/$2" "/run/systemd/system/$2"; do
    case " $m " in *" $f "*) ;; *) m="$m $f" ;; esac
  done
}
gone() { [ ! -e "$1" ] && [ ! -L "$1" ]; }
drop() {
  gone "$1" && return 0
  why=$(rm -f -- "$1" 2>&1)
  if gone "$1"; then echo "removed $1"; else echo "left $1: \${why:-it is still there}"; fi
}
literal() { printf '%s' "$1" | sed 's/[\\\\*?[]/\\\\&/g'; }
# A unit's file (unless a /dev/null mask), its record and intent, and every link enable made to its file
# (for an instance: its own links to its template's file), looked for one level below the admin
# directory and compared once resolved; a mask is reported and stays. Prints removed, kept and left lines.
removal() {
  file='' to=$1/$2 named=''
  if [ "$3" = file ]; then
    file=$1/$2
  else
    case $s in ?*@?*) to=$1/\${s%%@*}@.$t named=$2 ;; esac
  fi
  [ -z "$file" ] || [ "$(readlink -- "$file" 2>/dev/null)" = /dev/null ] || drop "$file"
  drop "$RECORDS/$2"
  drop "$INTENTS/$2"
  masks "$1" "$2"
  for f in $m; do
    if [ "$(readlink -- "$f" 2>/dev/null)" = /dev/null ]; then echo "kept $f"; fi
  done
  base=$(literal "\${to##*/}")
  set -- \\( -lname "*/$base" -o -lname "$base" \\)
  [ -z "$named" ] || set -- -name "$(literal "$named")" "$@"
  find "$ADMIN" -maxdepth 2 -type l "$@" 2>/dev/null |
    while IFS= read -r l; do
      r=$(readlink -- "$l")
      case $r in /*) ;; *) r=$(realpath -m -s -- "\${l%/*}/$r") ;; esac
      if [ "$r" = "$to" ]; then drop "$l"; fi
    done
}
state() { systemctl show -p "$1" --value -- "$u" 2>/dev/null; }

# The steps: each checks its arguments, then, when the whole request passed, acts.
v_systemctl() {
  [ $# -ge 2 ] || refuse 'systemctl takes a verb, a flag or none, and unit names'
  a=$1 f=
  shift
  case $a in
  start | stop | restart) f=--no-block ;;
  enable | disable) f=--no-reload ;;
  reset-failed) ;;
  *) refuse "systemctl's verb must be one of start, stop, restart, enable, disable, reset-failed" ;;
  esac
  case $1 in
  --*) [ "$1" = "$f" ] || refuse "systemctl $a takes no flag but \${f:-none}" ;;
  *) f= ;;
  esac
  [ -z "$f" ] || shift
  [ $# -ge 1 ] || refuse 'systemctl takes one or more unit names'
  for e in "$@"; do unit "$e" 'each unit'; done
  [ "$mode" = run ] || return 0
  systemctl "$a" $f -- "$@"
}
v_reload() {
  takes $# 0 'no arguments'
  [ "$mode" = run ] || return 0
  systemctl daemon-reload
}
v_unmask() {
  takes $# 2 'a directory and a unit name'
  dir "$1" 'the directory'
  unit "$2" 'the unit'
  [ "$mode" = run ] || return 0
  masks "$d" "$u"
  for f in $m; do
    if [ -L "$f" ] && [ "$(readlink -- "$f")" = /dev/null ]; then
      rm -f -- "$f" || return 1
    elif [ -f "$f" ] && [ ! -s "$f" ] && [ ! -L "$f" ]; then
      echo "$f is an empty file, not a /dev/null link" >&2
      return 3
    fi
  done
}
v_write_unit() {
  takes $# 4 'a directory, a unit name, the sha256 of its content and its size in bytes'
  dir "$1" 'the directory'
  unit "$2" 'the unit'
  digest "$3" "$4"
  [ "$mode" = run ] || return 0
  write_file "$d" "$d/$u" "$3" "$4"
}
v_write_drop_in() {
  takes $# 5 'a directory, a unit name, a drop-in name, the sha256 of its content and its size in bytes'
  dropin "$1" "$2" "$3"
  digest "$4" "$5"
  [ "$mode" = run ] || return 0
  write_file "\${p%/*}" "$p" "$4" "$5"
}
v_remove_unit() {
  takes $# 2 'a directory and a unit name'
  dir "$1" 'the directory'
  unit "$2" 'the unit'
  [ "$mode" = run ] || return 0
  removal "$d" "$u" file
}
# A unit's destroy after its stop: disabled while its file is there (when asked), removed, its failed
# record cleared; then whether systemd must reload to let go of it (the caller's shared reload), and
# its load state. An instance asks a reload only when it was disabled; a template is never shown.
v_destroy_unit() {
  takes $# 4 'a directory, a unit name, file or instance, and disable or keep'
  dir "$1" 'the directory'
  unit "$2" 'the unit'
  case $3 in file | instance) ;; *) refuse 'the third word must be file or instance' ;; esac
  case $4 in disable | keep) ;; *) refuse 'the fourth word must be disable or keep' ;; esac
  [ "$mode" = run ] || return 0
  if [ "$4" = disable ]; then systemctl disable --no-reload -- "$u" || exit 1; fi
  removal "$d" "$u" "$3"
  case $s in
  *@) ;;
  *) if [ "$(state ActiveState)" = failed ]; then systemctl reset-failed -- "$u" || exit 1; fi ;;
  esac
  if [ "$3" = file ]; then
    [ "$(state LoadState)" = not-found ] || echo reload
  elif [ "$4" = disable ]; then
    echo reload
  fi
  echo "load $(state LoadState)"
}
v_remove_drop_in() {
  takes $# 3 'a directory, a unit name and a drop-in name'
  dropin "$@"
  [ "$mode" = run ] || return 0
  rm -f -- "$p" && { rmdir -- "\${p%/*}" 2>/dev/null || true; }
}
v_forget_drop_in() {
  takes $# 3 'a directory, a unit name and a drop-in name'
  dropin "$@"
  [ "$mode" = run ] || return 0
  for f in "$MARKS$p" "$INTENTS/drop-ins$p"; do
    rm -f -- "$f" || return 1
    rmdir -- "\${f%/*}" 2>/dev/null || true
  done
}
# An intent (i) or a record (r) of a unit or a drop-in: its path made from the checked object, then its words.
v_text() {
  k=$1 of=$2
  shift 2
  if [ "$of" = unit ]; then
    [ $# -ge 2 ] || refuse "$verb takes a unit name and the words of its text"
    unit "$1" 'the unit'
    shift
    f=$u
  else
    [ $# -ge 4 ] || refuse "$verb takes a directory, a unit name, a drop-in name and the words of its text"
    dropin "$1" "$2" "$3"
    shift 3
    f=$p
  fi
  words "$@"
  [ "$mode" = run ] || return 0
  case $k$of in
  iunit) f=$INTENTS/$f ;;
  idrop-in) f=$INTENTS/drop-ins$f ;;
  runit) f=$RECORDS/$f ;;
  *) f=$MARKS$f ;;
  esac
  stage "$k" "$f" "$@"
}
v_clear_unit_intent() {
  takes $# 1 'a unit name'
  unit "$1" 'the unit'
  [ "$mode" = run ] || return 0
  removed=$removed$INTENTS/$u$NL
}
v_clear_drop_in_intent() {
  takes $# 3 'a directory, a unit name and a drop-in name'
  dropin "$@"
  [ "$mode" = run ] || return 0
  removed=$removed$INTENTS/drop-ins$p$NL
}
v_journal() {
  takes $# 2 'a unit name and a number of lines'
  unit "$1" 'the unit'
  case $2 in [1-9] | [1-9][0-9] | [1-9][0-9][0-9]) ;; *) refuse 'the number of lines must be 1 to 999' ;; esac
  [ "$mode" = run ] || return 0
  journalctl -u "$u" -n "$2" --no-pager -o short-iso 2>&1 | tail -n "$2"
}
# Both --after and --before: systemd 252 prints the jobs a job waits for under --before, later versions
# under --after.
v_list_jobs() {
  [ $# -le 1 ] || refuse 'list-jobs takes a unit name or nothing'
  [ $# -eq 0 ] || unit "$1" 'the unit'
  [ "$mode" = run ] || return 0
  if [ $# -eq 0 ]; then
    systemctl list-jobs --no-pager --no-legend
  else
    systemctl list-jobs --no-pager --no-legend --after --before -- "$u"
  fi
}

steps() {
  step=0
  IFS=$NL
  for line in $ops; do
    IFS=' '
    step=$((step + 1))
    case $line in *'  '* | ' '* | *' ') refuse 'its words must be separated by single spaces' ;; esac
    # shellcheck disable=SC2086 # its words, split on purpose (set -f: no globbing)
    set -- $line
    verb=$1
    shift
    case $verb in
    intent-* | record-* | clear-*) ;;
    *) [ "$mode" = check ] || flush ;;
    esac
    case $verb in
    systemctl) v_systemctl "$@" ;;
    reload) v_reload "$@" ;;
    unmask) v_unmask "$@" ;;
    write-unit) v_write_unit "$@" ;;
    write-drop-in) v_write_drop_in "$@" ;;
    remove-unit) v_remove_unit "$@" ;;
    destroy-unit) v_destroy_unit "$@" ;;
    remove-drop-in) v_remove_drop_in "$@" ;;
    forget-drop-in) v_forget_drop_in "$@" ;;
    intent-unit) v_text i unit "$@" ;;
    intent-drop-in) v_text i drop-in "$@" ;;
    record-unit) v_text r unit "$@" ;;
    record-drop-in) v_text r drop-in "$@" ;;
    clear-unit-intent) v_clear_unit_intent "$@" ;;
    clear-drop-in-intent) v_clear_drop_in_intent "$@" ;;
    journal) v_journal "$@" ;;
    list-jobs) v_list_jobs "$@" ;;
    *) refuse "the steps are: $STEPS" ;;
    esac || exit $?
  done
  IFS=' '
}

# The request: its version line, its steps, then an end line; or a write step last, its file's bytes after it.
[ $# -eq 0 ] || fail 'takes no arguments: it reads its request on stdin' 64
IFS= read -r line || fail 'no request on stdin' 64
case $line in
"$ME $VERSION") ;;
"$ME "*)
  fail "this is version $VERSION and the request is for version $(shown "\${line#"$ME "}"): install the one of the \\
cdktf-homelab that sent it (npx cdktf-homelab root-helper prints it)" 65
  ;;
*) fail "a request starts with the line: $ME <version>" 64 ;;
esac
ops=
while :; do
  IFS= read -r line || fail 'the request ended before its end line (cut short): nothing was done' 64
  case $line in
  end) break ;;
  write-unit\\ * | write-drop-in\\ *)
    ops=$ops$line$NL
    break
    ;;
  esac
  ops=$ops$line$NL
done
IFS=' '
mode=check
steps
mode=run
steps
flush
`;
