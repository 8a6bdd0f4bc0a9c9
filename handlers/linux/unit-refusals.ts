/**
 * The batch apply's refusals before it changes anything (src/linux/unit-refusal.ts judges them, the plan reads the
 * same judgement; unit-basis.ts, a unit changed since the plan): thrown for the track's object, left as it was.
 */
import { HandlerError } from '../../src/core/errors';
import type { LiveUnit } from '../../src/linux/unit-control';
import { type BatchFiles, type BatchItem, batchFilesOf } from '../../src/linux/unit-batch';
import { dropInMoved, tracesUsedBy, unitMoved } from '../../src/linux/unit-basis';
import { clearTraceStep, dropInAt } from '../../src/linux/drop-in-traces';
import { dropInPath } from '../../src/linux/systemd-drop-in';
import { unitRefusalOf } from '../../src/linux/unit-refusal';
import type { HostShell } from './host-shell';
import type { Track } from './unit-track';

/** The batch's files (unit-batch.ts), from its tracks. */
export const batchFiles = (tracks: readonly Track[]): BatchFiles => batchFilesOf(tracks.map(({ item }) => item.change));

/**
 * Refuses the track's object before anything is written: one that reads otherwise than its plan read it
 * (unit-basis.ts), or when src/linux/unit-refusal.ts says the apply must.
 */
export const refuse = (shell: HostShell, track: Track, files: BatchFiles): void => {
  const moved = movedSincePlan(shell.host, track.item, track.before);
  if (moved !== undefined) throw moved;
  const refusal = unitRefusalOf(track.item.change, track.before, files);
  if (refusal === undefined) return;
  const { subject, verdict, detail, facts } = refusal;
  throw new HandlerError(`${subject} on ${shell.host} ${verdict}`, detail, facts);
};

/** The object's change since its plan read it (unit-basis.ts); none without the plan's reading (an earlier version). */
const movedSincePlan = (host: string, { change, basis }: BatchItem, before: LiveUnit) => {
  if (basis === undefined) return undefined;
  return change.sort === 'drop-in'
    ? dropInMoved(change.spec, host, basis, before)
    : unitMoved(change.spec, host, basis, before);
};

/**
 * Clears the traces (drop-in-traces.ts) that let a drop-in of the stack's be gone since the plan: a destroy of this
 * apply removed it, and no later apply needs to know (its plan reads it gone). One request, when any was used.
 */
export const clearTraces = async (shell: HostShell, tracks: readonly Track[]): Promise<void> => {
  const used = tracks.flatMap(({ item: { change, basis }, before }) =>
    basis === undefined
      ? []
      : tracesUsedBy(basis, before, change.sort === 'drop-in' ? dropInPath(change.spec) : undefined),
  );
  const steps = [...new Set(used)].flatMap((path) => {
    const dropIn = dropInAt(path);
    return dropIn === undefined ? [] : [clearTraceStep(dropIn)];
  });
  if (steps.length === 0) return;
  const result = await shell.helper(steps);
  if (result.code !== 0)
    shell.log(`${shell.host}: the traces of the drop-ins its destroys removed stay: ${result.stderr.trim()}`);
};
