/**
 * What a plan read of a systemd unit, instance or drop-in, which its apply must still find before it changes
 * anything: a unit whose file or a drop-in was edited by hand, or which was enabled, disabled, masked, started or
 * stopped, between the plan and the apply, had the apply act on its own read (rewrite the file, restart the process)
 * though the plan named only another change of it. Made from the read's own data (no command more on the host: the
 * plan read of 200 units is the hot path); the apply refuses the object alone when its read, before any write,
 * differs.
 */
import { digestOf } from '../core/canonical';
import { HandlerError } from '../core/errors';
import { notAsPlanned } from '../core/not-as-planned';
import { dropInPath } from './drop-in-path';
import type { DropInSpec } from './systemd-drop-in';
import type { DesiredUnit, LiveUnit } from './unit-control';
import { runningOf } from './unit-diff';
import { isUnitRunning } from './unit-state';

const READ = 'unit read ';
const DROP_IN_READ = 'drop-in read ';

/**
 * What the read holds of a unit's own file and state, as the digest of both kinds' readings. Left out: the unit's
 * drop-ins (which it loads, which it has not loaded, the digest over all its loaded files) and a pending
 * daemon-reload, since a drop-in the same apply retires changes them with no hand on it: its destroy hook removes the
 * file and reloads before the host's batch apply runs, so with them in, a unit changed in that apply was refused
 * (test/e2e/removal.test.ts, measured). A drop-in edited by hand after the plan is still refused by its own reading.
 */
const readOf = (live: LiveUnit, running: boolean | null, enablement: string | null): string => {
  const { status } = live;
  const read = {
    file: live.fileSha256 ?? null,
    link: live.fileIsLink === true,
    load: status.loadState,
    enablement,
    fragment: status.fragmentPath ?? null,
    running,
  };
  return digestOf(read).slice(0, 16);
};

/**
 * The unit as a digest of what decides the apply's steps: its file (digest, or a link in its place), the file
 * systemd loaded it from, its load and enablement state, and whether it runs by the one policy the diff uses
 * (isUnitRunning: a crash loop's restarts and a new invocation count as the same running). Left out: what changes
 * with no hand on it (times, job, invocation, its drop-ins: readOf), and the stack's own records and intent, which a
 * read login may not see as the apply's login does. A unit whose stop comes with the destroy of a unit the plan removes
 * (`stoppedBy`, unit-stop-propagation.ts) is read with whether it runs left out: that destroy runs before the batch
 * apply, and stops it.
 */
export const unitBasis = (spec: DesiredUnit, live: LiveUnit, stoppedBy?: string): string =>
  stoppedBy === undefined
    ? `${READ}${readOf(live, runningOf(spec, live), live.status.unitFileState)}`
    : leftToDestroy(live);

const leftToDestroy = (live: LiveUnit): string => `${READ}${readOf(live, null, live.status.unitFileState)}`;

/**
 * A drop-in likewise: its file, its unit's load state and the file it is loaded from, and whether its unit runs
 * (crash loop included: a drop-in's apply restarts a unit it finds running); its unit's enablement is not its own.
 * A destroy the plan runs before the apply that stops its unit (`stoppedBy`) leaves whether its unit runs out.
 */
export const dropInBasis = (live: LiveUnit, stoppedBy?: string): string => {
  const { activeState, subState } = live.status;
  const running = stoppedBy === undefined ? isUnitRunning(activeState, subState, false) : null;
  return `${DROP_IN_READ}${readOf(live, running, null)}`;
};

const dropInLeftToDestroy = (live: LiveUnit): string => `${DROP_IN_READ}${readOf(live, null, null)}`;

/**
 * Why the apply must not act on the unit: it reads now (`live`) otherwise than the plan read it (`planned`).
 * Undefined when they agree.
 */
export const unitMoved = (
  spec: DesiredUnit,
  host: string,
  planned: string,
  live: LiveUnit,
): HandlerError | undefined => {
  if (unitBasis(spec, live) === planned || leftToDestroy(live) === planned) return undefined;
  return notAsPlanned(
    `${spec.name} on ${host}`,
    'it was changed after the plan read it (its file, its enablement or mask, or whether it runs), so this apply ' +
      'would act on that change (write its file over it, restart, start or stop it)',
    'nothing was written, started, stopped or restarted for it',
  );
};

/** Why the apply must not write the drop-in: it or its unit reads now otherwise than the plan read them. */
export const dropInMoved = (
  spec: DropInSpec,
  host: string,
  planned: string,
  live: LiveUnit,
): HandlerError | undefined => {
  if (dropInBasis(live) === planned || dropInLeftToDestroy(live) === planned) return undefined;
  return notAsPlanned(
    `drop-in ${dropInPath(spec)} on ${host}`,
    'it or its unit was changed after the plan read them (its file, the file its unit loads, or whether its unit ' +
      'runs), so this apply would act on that change (write the file over it, restart its unit)',
    'nothing was written or restarted for it',
  );
};
