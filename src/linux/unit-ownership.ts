/**
 * Which units, instances and drop-ins on a host this stack made (README, Adoption), from records under
 * /var/lib/cdktf-homelab that systemd never reads, so writing one restarts and reloads nothing. A unit or
 * instance is the stack's when its restartOn record exists: every version writes it on the unit's first
 * apply, so units made before adoption was explicit are recognised. A drop-in is the stack's when its
 * mark exists; earlier versions wrote none (README, Adoption: upgrading). An apply's intent, written
 * before its first effect, proves it too: a stop before the record then leaves nothing foreign.
 *
 * The record, the mark and the intent name the stack that wrote them (issue 27): a second stack declaring
 * the same unit reads it as the first stack's, its apply refuses it even with `adopt: true` (unless
 * `takeOver: true`), and its destroy leaves it. One naming no stack (an earlier version's) counts as the
 * reading stack's, and its object's next apply writes that stack into it.
 */
import { destroyLeaves, leftByStack } from '../core/stack-id';
import { dropInPath, type DropInPlace } from './drop-in-path';
import { DROP_IN_MARK_DIR } from './state-paths';
import type { LiveUnit } from './unit-control';

/** The mark of `dropIn`, whose text the host read returns in the place of a unit's restartOn record. */
export const dropInMarkPath = (dropIn: DropInPlace): string => `${DROP_IN_MARK_DIR}${dropInPath(dropIn)}`;

/** What a mark holds: any text marks, this says what wrote it. */
export const DROP_IN_MARK = 'cdktf-homelab';

/**
 * A unit file (`ownsFile`), or an instance that is enabled or runs, with neither a restartOn record
 * nor an intent: there is something to take over, and no apply of this stack made it.
 */
export const unitIsForeign = (live: LiveUnit, ownsFile: boolean): boolean => {
  if (live.restartOn !== undefined || live.intent !== undefined) return false;
  if (ownsFile) return live.fileSha256 !== undefined;
  const { unitFileState, activeState } = live.status;
  return unitFileState.startsWith('enabled') || !['inactive', 'failed', ''].includes(activeState);
};

/** A drop-in file with neither a mark (read in the restartOn record's place) nor an intent. */
export const dropInIsForeign = (live: LiveUnit): boolean =>
  live.fileSha256 !== undefined && live.restartOn === undefined && live.intent === undefined;

/**
 * The stack the object's marks name: its intent's (written by the newest apply, which may have taken
 * it over) before its record's; undefined when neither names one (absent, or an earlier version's).
 */
export const markStackOf = (live: LiveUnit): string | undefined => live.intent?.stack ?? live.recordStack;

/**
 * Whether a destroy of `stack` may act on a unit, instance or drop-in (issue 27): not when another
 * stack's mark names it, adopt or not; else when its record or mark is there, or an apply's intent
 * (even an earlier version's bare record counts), or its construct says `adopt: true`. Anything else,
 * made by hand and refused by the apply, the destroy leaves as it is.
 */
export const destroyMayAct = (live: LiveUnit, adopt: boolean, stack?: string): boolean =>
  !destroyLeaves(markStackOf(live), stack) && (adopt || live.restartOn !== undefined || live.intent !== undefined);

/** What a destroy says of an object it leaves (`destroyMayAct` false) that is there. */
export const LEFT_UNMARKED = 'not created by this stack (never adopted): left as it is';

/** What a destroy of `stack` says of an object it leaves, by why it leaves it. */
export const leftByDestroy = (live: LiveUnit, stack: string | undefined, there: boolean): string => {
  const mark = markStackOf(live);
  if (destroyLeaves(mark, stack)) return leftByStack(mark, stack);
  return there ? LEFT_UNMARKED : 'already absent';
};
