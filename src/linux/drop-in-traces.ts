/**
 * How the batch apply tells a drop-in of the stack's that a destroy of the same apply removed from one removed by
 * hand after the plan: both are gone when it reads, and the second went live unsaid with the restart its plan named.
 * The destroy leaves a trace through the root helper (`trace-drop-in`: the path and the stamp it read, root's to
 * write alone, so no other login can forge one; no content, no digest of it); the apply reads them, and its use
 * clears them.
 */
import type { HelperStep } from './root-helper';
import { DROP_IN_MARK_DIR } from './unit-ownership';

/** Where the helper keeps each trace: this directory, then the drop-in's path. */
export const DROP_IN_TRACE_DIR = '/var/lib/cdktf-homelab/removed';

/** What the apply's read found: each trace's stamp by path, and the drop-ins whose mark stays with their file gone. */
export interface DropInRemovals {
  readonly traced: ReadonlyMap<string, string>;
  readonly markedGone: readonly string[];
}

/**
 * The helper's verbs. `trace-drop-in` follows a drop-in's `remove-drop-in` in its destroy's request (the helper runs
 * no step after one that fails), and stages the trace only while no file is at that path. A trace cleared takes its
 * unit's directory under removed/ when that is left empty, and a unit's destroy (`untrace`, in destroy-unit once its
 * file is gone) takes the traces of its drop-ins in every unit directory: its drop-ins' lifecycles are destroyed
 * before it, and no batch apply reads a trace of a unit gone, so nothing else would ever clear them.
 */
export const ROOT_HELPER_TRACES = `\
TRACES=$STATE/removed
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

type DropIn = { readonly directory: string; readonly unit: string; readonly name: string };

/** The trace of a drop-in its destroy removed, with the stamp its read gave the file (unit-basis.ts `dropInStamps`). */
export const traceDropInStep = (
  dropIn: DropIn,
  stamp: { readonly time: number; readonly file: string },
): HelperStep => ['trace-drop-in', dropIn.directory, dropIn.unit, dropIn.name, String(stamp.time), stamp.file];

/** The trace cleared, once an apply took the drop-in's absence for its destroy's. */
export const clearTraceStep = (dropIn: DropIn): HelperStep => [
  'clear-drop-in-trace',
  dropIn.directory,
  dropIn.unit,
  dropIn.name,
];

/**
 * The apply's read of the traces (`t <stamp>\t<path>`) and of the stack's marks whose drop-in is gone (`o\t<path>`):
 * one `find` over both directories, the rest builtins. Measured with dash on a dev machine at load 5 to 6 (not the
 * test host), 20 runs each: 16 ms a read with one trace and no mark, 33 ms with 200 marks whose files were all gone.
 */
export const REMOVED_DROP_INS =
  `R=${DROP_IN_TRACE_DIR} M=${DROP_IN_MARK_DIR}; find "$R" "$M" -type f -name '*.conf' 2>/dev/null | ` +
  'while IFS= read -r f; do case $f in "$R"/*) l=; IFS= read -r l < "$f"; ' +
  `printf 't %.64s\\t%s\\n' "$l" "\${f#"$R"}" ;; *) g=\${f#"$M"}; ` +
  `[ -e "$g" ] || [ -L "$g" ] || printf 'o\\t%s\\n' "$g" ;; esac; done`;

/** The answer of `REMOVED_DROP_INS`. */
export const parseRemovedDropIns = (text: string): DropInRemovals => ({
  traced: new Map([...text.matchAll(/^t (\S+ \S+)\t(\/.*)$/gm)].map(([, stamp = '', path = '']) => [path, stamp])),
  markedGone: [...text.matchAll(/^o\t(\/.*)$/gm)].map(([, path = '']) => path),
});

/** The drop-in a path under a unit directory names (`<directory>/<unit>.d/<name>.conf`), for `clearTraceStep`. */
export const dropInAt = (path: string): DropIn | undefined => {
  const match = /^(\/.+)\/([^/]+)\.d\/([^/]+)\.conf$/.exec(path);
  return match === null ? undefined : { directory: match[1] ?? '', unit: match[2] ?? '', name: match[3] ?? '' };
};
