/**
 * Whose a unit, instance or drop-in on the host is, by the marks every stack leaves (unit-ownership.ts,
 * unit-intent.ts): discover leaves out one a stack's mark is on, since a second stack adopting it would
 * fight the first, and one whose mark this login cannot read, since then whose it is cannot be told. A
 * mark naming a stack says which (issue 27): another stack than the one discover writes, or that one.
 */
import { DROP_IN_MARK_DIR, INTENT_DIR } from '../linux/state-paths';
import type { LiveUnit } from '../linux/unit-control';
import { markStackOf } from '../linux/unit-ownership';
import type { ReadEntry } from '../linux/unit-read';
import { markedBy, type Skipped } from './declaration';
import { isHidden } from './host-listing';

/**
 * Why an object is some stack's, or cannot be told to be nobody's: its record, mark or intent is
 * there, or its record or mark may be there where this login cannot read (`unreadable`: unit-read.ts;
 * `hidden`: a directory it may not search). Undefined when unmarked.
 */
export const markOf = (
  entry: ReadEntry,
  live: LiveUnit,
  unreadable: ReadonlySet<string>,
  hidden: readonly string[],
  stackId?: string,
): Omit<Skipped, 'what'> | undefined => {
  const kind = entry.record?.startsWith(DROP_IN_MARK_DIR) === true ? 'mark' : 'restartOn record';
  const record = entry.record ?? '';
  if (unreadable.has(record))
    return { why: `its ${kind} ${record} is there but this login may not read it: whose it is cannot be told` };
  if (isHidden(record, hidden))
    return { why: `its ${kind} ${record} is where this login may not search: whose it is cannot be told` };
  const whose = markedBy(markStackOf(live), stackId);
  if (live.restartOn !== undefined) return { why: `its ${kind} ${record} is there${whose}`, group: 'managed' };
  if (live.intent !== undefined) {
    const why = `an apply's intent ${entry.intent ?? ''} is there (that apply did not finish)${whose}`;
    return { why, group: 'managed' };
  }
  return undefined;
};

/** What a login that may not look into the intents (made so by hand: they are readable) must be told: it saw none. */
export const hiddenIntentsNote = (hidden: readonly string[]): string[] =>
  isHidden(INTENT_DIR, hidden)
    ? [
        `this login may not look into ${INTENT_DIR}: an object whose only mark is an interrupted ` +
          "apply's intent reads as nobody's and is declared; discover as root tells them apart",
      ]
    : [];
