/**
 * The batch apply's refusals before it changes anything (src/linux/unit-refusal.ts judges them, the plan reads the
 * same judgement): thrown for the track's object, which is left as it was.
 */
import { HandlerError } from '../../src/core/errors';
import { type BatchFiles, batchFilesOf } from '../../src/linux/unit-batch';
import { unitRefusalOf } from '../../src/linux/unit-refusal';
import type { HostShell } from './host-shell';
import type { Track } from './unit-track';

/** The batch's files (unit-batch.ts), from its tracks. */
export const batchFiles = (tracks: readonly Track[]): BatchFiles => batchFilesOf(tracks.map(({ item }) => item.change));

/** Refuses the track's object before anything is written, when src/linux/unit-refusal.ts says the apply must. */
export const refuse = (shell: HostShell, track: Track, files: BatchFiles): void => {
  const refusal = unitRefusalOf(track.item.change, track.before, files);
  if (refusal === undefined) return;
  const { subject, verdict, detail, facts } = refusal;
  throw new HandlerError(`${subject} on ${shell.host} ${verdict}`, detail, facts);
};
