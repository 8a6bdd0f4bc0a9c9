/**
 * Which units, instances and drop-ins on a host this stack made (README, Adoption), from records under
 * /var/lib/cdktf-homelab that systemd never reads, so writing one restarts and reloads nothing. A unit or
 * instance is the stack's when its restartOn record exists: every version writes it on the unit's first
 * apply, so units made before adoption was explicit are recognised. A drop-in is the stack's when its
 * mark exists; earlier versions wrote none (README, Adoption: upgrading). An apply's intent, written
 * before its first effect, proves it too: a stop before the record then leaves nothing foreign.
 */
import { dropInPath, type DropInIdentity } from './systemd-drop-in';
import type { LiveUnit } from './unit-control';

/** Where the marks of the drop-ins this stack made live: the drop-in's own path below it. */
export const DROP_IN_MARK_DIR = '/var/lib/cdktf-homelab/drop-ins';

/** The mark of `dropIn`, whose text the host read returns in the place of a unit's restartOn record. */
export const dropInMarkPath = (dropIn: DropInIdentity): string => `${DROP_IN_MARK_DIR}${dropInPath(dropIn)}`;

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
 * Whether a destroy may act on a unit, instance or drop-in (issue 27): its record or mark is there, or
 * an apply's intent (even an earlier version's bare record counts), or its construct says `adopt: true`.
 * Anything else, made by hand and refused by the apply, the destroy leaves as it is.
 */
export const destroyMayAct = (live: LiveUnit, adopt: boolean): boolean =>
  adopt || live.restartOn !== undefined || live.intent !== undefined;

/** What a destroy says of an object it leaves (`destroyMayAct` false) that is there. */
export const LEFT_UNMARKED = 'not created by this stack (never adopted): left as it is';
