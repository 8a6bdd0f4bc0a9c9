/**
 * A failed apply's undo of one object's file: the previous file put back, or the new one removed, only while the file
 * is still the content this apply wrote. Without that condition the undo put back the file the apply read (or removed
 * the new one) over a hand's edit made after the write, and said it restored the host.
 */
import { changedPaths, removeUnitStep, restoreStep } from '../../src/linux/root-helper';
import { fileOf } from '../../src/linux/unit-batch';
import { parseRemoval } from '../../src/linux/unit-remove';
import type { HostShell } from './host-shell';
import type { Track } from './unit-track';

/**
 * Puts the previous file back as the helper kept it (bytes, mode, owner), or removes the new one with its
 * restartOn record and any link to it (`unit-remove.ts`); a path it cannot remove fails the undo naming it.
 * A file changed since the apply wrote it is left as it is, its track added to `left`.
 */
export const revertFile = async (shell: HostShell, track: Track, left: Set<Track>): Promise<void> => {
  const { change } = track.item;
  const file = fileOf(change);
  if (file === undefined || !track.wrote) return;
  const step =
    change.sort === 'unit' && track.replaced !== true
      ? removeUnitStep(change.spec, file.content)
      : restoreStep(file.object, file.content, track.replaced === true);
  const { stdout } = await shell.mustHelper([step]);
  if (changedPaths(stdout).length > 0) {
    left.add(track);
    return;
  }
  const removal = parseRemoval(stdout);
  if (removal.left.length > 0) throw new Error(`could not remove ${removal.left.join('; ')}`);
};

/**
 * What the undo did of an object whose file it left: the file named and why, then the rest of its undo (a new unit
 * stopped and unlinked, a rewritten one's links put back as they were; a drop-in's unit is not restarted with a file
 * this apply did not write).
 */
export const leftWords = (track: Track, stopped: boolean): string => {
  const { change } = track.item;
  const left = `${fileOf(change)?.path} left as it is: it changed after this apply wrote it`;
  if (change.sort === 'drop-in') return `; ${left}, and ${change.spec.unit} not restarted with it`;
  const links = track.switched === undefined ? '' : track.replaced === true ? '; its links put back' : '; unlinked it';
  return `; ${stopped ? 'stopped the unit; ' : ''}${left}${links}`;
};
