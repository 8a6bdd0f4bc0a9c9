/**
 * What a plan read of a systemd unit, instance or drop-in, which its apply must still find before it changes
 * anything: a unit whose file or a drop-in was edited by hand, or which was enabled, disabled, masked, started or
 * stopped, between the plan and the apply, had the apply act on its own read (rewrite the file, restart the process)
 * though the plan named only another change of it; a drop-in added to it (or removed from it, the stack's own too)
 * by hand went live with the restart its plan named for another reason. Made from the read's own data (no command
 * more on the host: the plan read of 200 units is the hot path); the apply refuses the object alone when its read,
 * before any write, differs.
 * Files are in it by stamp, never by a digest of their content (unit-basis-file.ts).
 */
import { digestOf } from '../core/canonical';
import { HandlerError } from '../core/errors';
import { notAsPlanned } from '../core/not-as-planned';
import { removableBy } from './drop-in-marks';
import { dropInPath } from './drop-in-path';
import type { DropInSpec } from './systemd-drop-in';
import type { DesiredUnit, LiveUnit } from './unit-control';
import type { FileStat } from './file-stat';
import { BY_STAMP, byStamp, type FileOf, formOf, stampDigest, UNSEEN } from './unit-basis-file';
import { runningOf } from './unit-diff';
import { isUnitRunning, type UnitStatus } from './unit-state';
import { type Gone, goneSince, goneWords, refusesGone, tracesUsed } from './unit-basis-gone';

const READ = 'unit read ';
const DROP_IN_READ = 'drop-in read ';
const DROP_INS = ' drop-ins ';
const STAYS = ' stays ';
/**
 * What the read holds of a unit's own file and state, as the digest of both kinds' readings. Its drop-ins are read
 * apart (`withDropIns`), and a pending daemon-reload not at all: a drop-in the same apply retires changes them with no
 * hand on it (its destroy hook removes the file and reloads before the host's batch apply runs).
 */
const readOf = (live: LiveUnit, running: boolean | null, enablement: string | null, fileOf: FileOf): string => {
  const { status } = live;
  const read = {
    file: fileOf(live),
    link: live.fileIsLink === true,
    load: status.loadState,
    enablement,
    fragment: status.fragmentPath ?? null,
    running,
  };
  return digestOf(read).slice(0, 16);
};

/**
 * Each drop-in on disk of the unit (`status.dropInPaths`: those systemd loaded and those a reload would load) as when
 * it last changed and which file it is (ctime and device:inode, the later of a link's and its file's), by path: never
 * a digest of its content, which the basis carries into the Terraform state and which may hold a secret
 * (`Environment=TOKEN=...`). A drop-in added, edited, renamed or pointed elsewhere reads otherwise. One pid1 lists that
 * the login could not stat is `UNSEEN`: behind a directory a read login may not search, or removed with a reload due.
 */
export const dropInStamps = (
  status: UnitStatus,
  stats: ReadonlyMap<string, FileStat>,
): { readonly dropInStamps?: ReadonlyArray<readonly [string, string]> } => {
  const stamps = (status.dropInPaths ?? []).map((path) => {
    const stat = stats.get(path);
    return [path, stat === undefined ? UNSEEN : `${stat.time} ${stat.file}`] as const;
  });
  return stamps.length === 0 ? {} : { dropInStamps: stamps };
};

/** The stamps of the drop-ins read, but the one at `own` (a drop-in's own file, which its own reading holds). */
const stampsOf = (live: LiveUnit, own?: string) => (live.dropInStamps ?? []).filter(([path]) => path !== own);

/**
 * `read` with the unit's drop-ins (`dropInStamps`) after it, each as a short digest, sorted: ` drop-ins a,b` (`none`
 * when it has none), then ` stays` and those of them no destroy of `stack` may remove (drop-in-marks.ts): the apply
 * refuses the object when one of these is gone (`goneSince`). Any other, the stack's, may go only as a destroy of the
 * same apply removes it (retired, deleted from the code or renamed: its old path is known to the state alone): its
 * destroy hook runs before the host's batch apply and leaves a trace of it (drop-in-traces.ts). One added or changed
 * refuses the object (`addedSince`).
 */
const withDropIns = (read: string, live: LiveUnit, own?: string, stack?: string): string => {
  const digestsOf = (stamps: ReturnType<typeof stampsOf>) => [...new Set(stamps.map(stampDigest))].sort();
  const digests = digestsOf(stampsOf(live, own));
  if (digests.length === 0) return `${read}${DROP_INS}none`;
  const stays = digestsOf(stampsOf(live, own).filter(([path]) => !removableBy(live.dropInMarks, path, stack)));
  return `${read}${DROP_INS}${digests.join(',')}${STAYS}${stays.length === 0 ? 'none' : stays.join(',')}`;
};

/**
 * The plan's reading (`planned`) apart: its own part, its drop-ins' digests, and those that must stay (none from an
 * earlier version, which refuses nothing on them).
 */
const partsOf = (
  planned: string,
): { readonly own: string; readonly dropIns?: ReadonlySet<string>; readonly stays?: ReadonlySet<string> } => {
  const at = planned.indexOf(DROP_INS);
  if (at < 0) return { own: planned };
  const [dropIns = '', stays] = planned.slice(at + DROP_INS.length).split(STAYS);
  const setOf = (list: string) => new Set(list.split(',').filter((digest) => digest !== 'none'));
  return {
    own: planned.slice(0, at),
    dropIns: setOf(dropIns),
    ...(stays === undefined ? {} : { stays: setOf(stays) }),
  };
};

/**
 * The drop-ins on disk now that the plan did not read so: added or changed since. None without the plan's list. One
 * the plan could not stat (a read login's, `UNSEEN`) is taken as it is; one this read cannot stat is not added.
 */
const addedSince = (live: LiveUnit, planned: ReadonlySet<string> | undefined, own?: string): string[] => {
  if (planned === undefined) return [];
  const known = ([path, stamp]: readonly [string, string]) =>
    stamp === UNSEEN || planned.has(stampDigest([path, stamp])) || planned.has(stampDigest([path, UNSEEN]));
  return stampsOf(live, own).flatMap((stamp) => (known(stamp) ? [] : [stamp[0]]));
};

/** What changed among the drop-ins since the plan (those added first), and that the apply would take it live. */
const changeOf = (paths: readonly string[], removed: Gone): string =>
  paths.length > 0
    ? `${added(paths)}), so this apply would take them live`
    : `${goneWords(removed)}), so this apply would take that live`;

const added = (paths: readonly string[]): string =>
  `${paths.join(', ')} ${paths.length === 1 ? 'was' : 'were'} added or changed`;

/**
 * The unit as a digest of what decides the apply's steps: its file (digest, or a link in its place), the file
 * systemd loaded it from, its load and enablement state, and whether it runs by the one policy the diff uses
 * (isUnitRunning: a crash loop's restarts and a new invocation count as the same running), then its drop-ins
 * (`withDropIns`). Left out: what changes with no hand on it (times, job, invocation), and the stack's own records
 * and intent, which a read login may not see as the apply's login does. A unit whose stop comes with the destroy of a
 * unit the plan removes (`stoppedBy`, unit-stop-propagation.ts) is read with whether it runs left out: that destroy
 * runs before the batch apply, and stops it. `stack`: the stack the plan is of, whose destroys may remove drop-ins.
 */
export const unitBasis = (spec: DesiredUnit, live: LiveUnit, stoppedBy?: string, stack?: string): string => {
  const own = stoppedBy === undefined ? ownRead(spec, live, byStamp) : leftToDestroy(live, byStamp);
  return withDropIns(`${READ}${BY_STAMP}${own}`, live, undefined, stack);
};

const ownRead = (spec: DesiredUnit, live: LiveUnit, fileOf: FileOf): string =>
  readOf(live, runningOf(spec, live), live.status.unitFileState, fileOf);

const leftToDestroy = (live: LiveUnit, fileOf: FileOf): string => readOf(live, null, live.status.unitFileState, fileOf);

/**
 * A drop-in likewise: its file, its unit's load state and the file it is loaded from, and whether its unit runs
 * (crash loop included: a drop-in's apply restarts a unit it finds running), then its unit's other drop-ins, which
 * that restart takes live too; its unit's enablement is not its own. A destroy the plan runs before the apply that
 * stops its unit (`stoppedBy`) leaves whether its unit runs out.
 */
export const dropInBasis = (spec: DropInSpec, live: LiveUnit, stoppedBy?: string, stack?: string): string => {
  const own = stoppedBy === undefined ? dropInRead(live, byStamp) : dropInLeftToDestroy(live, byStamp);
  return withDropIns(`${DROP_IN_READ}${BY_STAMP}${own}`, live, dropInPath(spec), stack);
};

const dropInRead = (live: LiveUnit, fileOf: FileOf): string => {
  const { activeState, subState } = live.status;
  return readOf(live, isUnitRunning(activeState, subState, false), null, fileOf);
};

const dropInLeftToDestroy = (live: LiveUnit, fileOf: FileOf): string => readOf(live, null, null, fileOf);

/** Whether the plan's own reading (`own`) is one of `reads` of the file now, in the form that plan held it. */
const readsAsPlanned = (own: string, read: string, reads: ReadonlyArray<(fileOf: FileOf) => string>): boolean => {
  const { fileOf, prefix } = formOf(own, read);
  return reads.some((readNow) => own === `${prefix}${readNow(fileOf)}`);
};

/**
 * Why the apply must not act on the unit: it reads now (`live`) otherwise than the plan read it (`planned`), or a
 * drop-in of it was added or changed since, or one no destroy of the stack may remove is gone. Undefined when they
 * agree.
 */
export const unitMoved = (spec: DesiredUnit, host: string, planned: string, live: LiveUnit): HandlerError | undefined =>
  movedSince(planned, live, {
    subject: `${spec.name} on ${host}`,
    unit: spec.name,
    left: 'nothing was written, started, stopped or restarted for it',
    prefix: READ,
    reads: [(fileOf) => ownRead(spec, live, fileOf), (fileOf) => leftToDestroy(live, fileOf)],
    changed:
      'it was changed after the plan read it (its file, its enablement or mask, or whether it runs), so this apply ' +
      'would act on that change (write its file over it, restart, start or stop it)',
    dropIns: (change) =>
      `its drop-ins changed after the plan read it (${change} (restart, start or reload it with them)`,
  });

/** Why the apply must not write the drop-in: it, its unit or its unit's other drop-ins read otherwise than planned. */
export const dropInMoved = (
  spec: DropInSpec,
  host: string,
  planned: string,
  live: LiveUnit,
): HandlerError | undefined =>
  movedSince(planned, live, {
    subject: `drop-in ${dropInPath(spec)} on ${host}`,
    unit: spec.unit,
    left: 'nothing was written or restarted for it',
    prefix: DROP_IN_READ,
    reads: [(fileOf) => dropInRead(live, fileOf), (fileOf) => dropInLeftToDestroy(live, fileOf)],
    changed:
      'it or its unit was changed after the plan read them (its file, the file its unit loads, or whether its unit ' +
      'runs), so this apply would act on that change (write the file over it, restart its unit)',
    dropIns: (change) =>
      `its unit's other drop-ins changed after the plan read them (${change} (restart its unit with them)`,
    own: dropInPath(spec),
  });

/** What `unitMoved` and `dropInMoved` tell apart: whose reading it is, and what each says when it moved. */
interface MoveCheck {
  readonly subject: string;
  readonly left: string;
  readonly prefix: string;
  readonly reads: ReadonlyArray<(fileOf: FileOf) => string>;
  readonly changed: string;
  readonly dropIns: (change: string) => string;
  /** A drop-in's own file, which its own reading holds, left out of its unit's drop-ins. */
  readonly own?: string;
  /** The unit whose drop-ins these are, whose directories name a drop-in of the stack's gone. */
  readonly unit: string;
}

/** The object's own reading first, then its unit's drop-ins: added or changed (`addedSince`), or gone (`goneSince`). */
const movedSince = (planned: string, live: LiveUnit, check: MoveCheck): HandlerError | undefined => {
  const parts = partsOf(planned);
  if (!readsAsPlanned(parts.own, check.prefix, check.reads))
    return notAsPlanned(check.subject, check.changed, check.left);
  const paths = addedSince(live, parts.dropIns, check.own);
  const removed = goneSince(parts, stampsOf(live, check.own), live.dropInRemovals, check.unit);
  if (paths.length === 0 && !refusesGone(removed)) return undefined;
  return notAsPlanned(check.subject, check.dropIns(changeOf(paths, removed)), check.left);
};

/** The traces (drop-in-traces.ts) that let a drop-in of the stack's be gone since the plan read the object. */
export const tracesUsedBy = (planned: string, live: LiveUnit, own?: string): string[] =>
  tracesUsed(partsOf(planned).dropIns, stampsOf(live, own), live.dropInRemovals);
