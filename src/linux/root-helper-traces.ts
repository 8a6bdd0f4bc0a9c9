/**
 * cdktf-homelab-root's drop-in traces (root-helper-script.ts composes the program; drop-in-traces.ts says what they are
 * for and builds their steps): a trace staged where a drop-in's destroy removed it, cleared once an apply took it.
 * Split from the script so each part stays readable, and from drop-in-traces.ts so the program's text imports nothing
 * of the steps that run it; the text is sh, edited as in root-helper-script.ts (\\ for a backslash, \${ for an
 * expansion).
 */
import { STATE_FOLDERS } from './state-paths';

/**
 * The helper's verbs. `trace-drop-in` follows a drop-in's `remove-drop-in` in its destroy's request (the helper runs
 * no step after one that fails), and stages the trace only while no file is at that path. A trace cleared takes its
 * unit's directory under removed/ when that is left empty, and a unit's destroy (`untrace`, in destroy-unit once its
 * file is gone) takes the traces of its drop-ins in every unit directory: its drop-ins' lifecycles are destroyed
 * before it, and no batch apply reads a trace of a unit gone, so nothing else would ever clear them.
 */
export const ROOT_HELPER_TRACES = `\
TRACES=$STATE/${STATE_FOLDERS.dropInTraces}
STEPS="$STEPS trace-drop-in clear-drop-in-trace"
v_trace_drop_in() {
  takes $# 5 'a directory, a unit and a drop-in name, and the ctime and device:inode of the file its destroy removed'
  dropin "$1" "$2" "$3"
  case $4 in '' | *[!0-9.]* | .* | *.*.*) refuse 'the ctime must be seconds since the epoch' ;; esac
  case $5 in *[!0-9:]* | :* | *: | *:*:*) refuse 'the file must be <device>:<inode>' ;; esac
  case $5 in *:*) ;; *) refuse 'the file must be <device>:<inode>' ;; esac
  [ "$mode" = run ] || return 0
  gone "$p" || return 0
  stage r "$TRACES$p" "$4" "$5"
}
v_clear_drop_in_trace() {
  takes $# 3 'a directory, a unit name and a drop-in name'
  dropin "$@"
  [ "$mode" = run ] || return 0
  rm -f -- "$TRACES$p" && { rmdir -- "$TRACES\${p%/*}" 2>/dev/null || true; }
}
# The traces of the drop-ins of $1 (a unit name), in every unit directory, as removed or left lines (drop).
untrace() {
  for e in $DIRS; do
    [ -d "$TRACES$e/$1.d" ] || continue
    set +f
    for f in "$TRACES$e/$1.d"/*.conf; do drop "$f"; done
    set -f
    rmdir -- "$TRACES$e/$1.d" 2>/dev/null || true
  done
}
`;
