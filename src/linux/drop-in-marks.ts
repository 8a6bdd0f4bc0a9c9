/**
 * Which drop-ins of a unit a destroy of this stack may remove between its plan and its batch apply: those that carry
 * its mark or an apply's intent (unit-ownership.ts `destroyMayAct`). Any other drop-in the plan read must still be
 * there when the apply acts: one removed by hand after the plan went unrefused, and the restart the plan named for
 * another reason took the unit live without it. Read in the plan's one round trip, from the marks' first lines.
 */
import { destroyLeaves } from '../core/stack-id';
import { parseIntent, parseRecord } from './unit-intent';
import { DROP_IN_MARK_DIR, INTENT_DIR } from './state-paths';

/**
 * For each drop-in among the read's "$@" (the files it dates) whose mark or intent is there: `m` or `i`, the first 256
 * bytes of its first line (words, never a tab), a tab, the path. Shell builtins alone: measured on the test host
 * (dash), 200 units with two drop-ins each, one marked, 9-11 ms a read against the plan read's 330-360 ms.
 */
export const DROP_IN_MARKS =
  `for f; do case $f in *.d/*) ;; *) continue ;; esac; for k in m${DROP_IN_MARK_DIR} i${INTENT_DIR}/drop-ins; do ` +
  'g=${k#?}$f; ' +
  `if [ -f "$g" ]; then l=; IFS= read -r l < "$g"; printf '%.1s %.256s\\t%s\\n' "$k" "$l" "$f"; fi; done; done`;

/** Each marked path with the stack its intent (else its mark) names; undefined where neither names one. */
export const marksByPath = (text: string): Map<string, string | undefined> => {
  const marks = new Map<string, { mark?: string; intent?: string }>();
  for (const [, sort, line = '', path = ''] of text.matchAll(/^([mi]) ([^\t\n]*)\t(.*)$/gm)) {
    marks.set(path, { ...marks.get(path), [sort === 'm' ? 'mark' : 'intent']: line });
  }
  const stackOf = ({ mark, intent }: { mark?: string; intent?: string }) =>
    (intent === undefined ? undefined : parseIntent(intent)?.stack) ??
    (mark === undefined ? undefined : parseRecord(mark).stack);
  return new Map([...marks].map(([path, found]) => [path, stackOf(found)] as const));
};

/** The marked ones among a unit's drop-ins (`paths`), by path; nothing when none is marked. */
export const dropInMarksOf = (
  paths: readonly string[],
  marks: ReadonlyMap<string, string | undefined>,
): { readonly dropInMarks?: ReadonlyMap<string, string | undefined> } => {
  const marked = paths.filter((path) => marks.has(path));
  return marked.length === 0 ? {} : { dropInMarks: new Map(marked.map((path) => [path, marks.get(path)])) };
};

/**
 * Whether a destroy run by `stack` may remove the drop-in at `path` (unit-ownership.ts `destroyMayAct`): it carries a
 * mark or intent, and none of another stack. One adopted (`adopt: true`) and never applied carries neither.
 */
export const removableBy = (
  marks: ReadonlyMap<string, string | undefined> | undefined,
  path: string,
  stack: string | undefined,
): boolean => marks !== undefined && marks.has(path) && !destroyLeaves(marks.get(path), stack);
