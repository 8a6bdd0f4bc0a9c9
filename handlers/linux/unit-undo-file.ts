/**
 * A failed apply's undo of one object's file: the previous file put back, or the new one removed, only while the file
 * is still the content this apply wrote. Without that condition the undo put back the file the apply read (or removed
 * the new one) over a hand's edit made after the write, and said it restored the host.
 */
import { changedPaths, removeUnitStep, restoreStep, type UnitObject } from '../../src/linux/root-helper';
import { KEPT_DIR } from '../../src/linux/state-paths';
import { dropInPath } from '../../src/linux/systemd-drop-in';
import { fileOf, unitOf } from '../../src/linux/unit-batch';
import { parseRemoval } from '../../src/linux/unit-remove';
import type { HostShell } from './host-shell';
import { relinkOf } from './unit-relink';
import type { Track } from './unit-track';

const keptPath = (object: UnitObject): string =>
  object.sort === 'drop-in' ? `${KEPT_DIR}/drop-ins${dropInPath(object)}` : `${KEPT_DIR}/${object.name}`;

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
 * stopped and unlinked; a rewritten one disabled and enabled again as before the apply, which systemd does from the
 * file left, its [Install] perhaps another's; a drop-in's unit not restarted with a file this apply did not write),
 * and where the file this apply replaced stays: the undo did not put it back, and the next write of it replaces it.
 */
export const leftWords = (track: Track, stopped: boolean): string => {
  const { change } = track.item;
  const file = fileOf(change);
  const left = `${file?.path} left as it is: it changed after this apply wrote it`;
  const kept =
    track.replaced === true && file !== undefined
      ? `; the file this apply replaced is kept, root's alone, at ${keptPath(file.object)} until the next apply or ` +
        'destroy of it'
      : '';
  if (change.sort === 'drop-in') return `; ${left}, and ${change.spec.unit} not restarted with it${kept}`;
  return `; ${stopped ? 'stopped the unit; ' : ''}${left}${linksWords(track)}${kept}`;
};

/** The links of a unit whose file the undo left: made again from that file, as `relinkOf` enables it, or not. */
const linksWords = (track: Track): string => {
  if (track.switched === undefined) return '';
  if (track.replaced !== true) return '; unlinked it';
  const verbs = relinkOf(track, false).flatMap(([verb, names]) =>
    names.includes(unitOf(track.item.change)) ? [verb] : [],
  );
  if (verbs.length === 0) return '; disabled it';
  const runtimeOnly = verbs.every((verb) => verb.endsWith('-runtime'));
  return `; enabled it again${runtimeOnly ? ' until reboot (/run only)' : ''} from that file's [Install]`;
};
