/**
 * How the batch apply tells a drop-in of the stack's that a destroy of the same apply removed from one removed by
 * hand after the plan: both are gone when it reads, and the second went live unsaid with the restart its plan named.
 * The destroy leaves a trace through the root helper (`trace-drop-in`, root-helper-traces.ts: the path and the stamp
 * it read, root's to write alone, so no other login can forge one; no content, no digest of it); the apply reads them,
 * and its use clears them.
 */
import type { HelperStep } from './root-helper';
import { DROP_IN_MARK_DIR, DROP_IN_TRACE_DIR } from './state-paths';

/** What the apply's read found: each trace's stamp by path, and the drop-ins whose mark stays with their file gone. */
export interface DropInRemovals {
  readonly traced: ReadonlyMap<string, string>;
  readonly markedGone: readonly string[];
}

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
