/**
 * How a failed apply's undo links a unit again, once its file is put back: under /etc where it was enabled,
 * and under /run where the apply's disable or reenable took links its [Install] made there. A unit enabled
 * under /etc and at runtime under /run reads `enabled` in list-unit-files; the undo linked it under /etc
 * alone, so its /run links were gone until someone ran `enable --runtime` again.
 */
import type { LinkVerb } from '../../src/linux/root-helper';
import { unitOf } from '../../src/linux/unit-batch';
import { enablementOf } from '../../src/linux/unit-state';
import type { Track } from './unit-track';

/**
 * How the undo links the track's unit again: each verb with its names. Only where the links were there before
 * and its [Install] made them: a link it does not make is not put back, and an enable of a unit that had only
 * such links would make new ones.
 */
export const relinkOf = (track: Track, isNew: boolean): Array<readonly [LinkVerb, readonly string[]]> => {
  const { before, switched } = track;
  if (switched === undefined || isNew) return [];
  const name = unitOf(track.item.change);
  const made = (paths: readonly string[]) =>
    before.links?.install === undefined
      ? paths.length > 0
      : paths.some((path) => before.links?.install?.includes(path));
  const enablement = enablementOf(before.status.unitFileState);
  const etc = enablement === 'enabled' && (before.links === undefined || made(before.links.etc));
  // The apply's enable never touches /run; its disable and reenable unlink there.
  const unlinkedRun = switched === 'disable' || switched === 'reenable';
  const wasRun = before.links === undefined ? enablement === 'runtime' : made(before.links.run);
  const own: Array<readonly [LinkVerb, readonly string[]]> = [
    ['enable', etc ? [name] : []],
    ['enable-runtime', unlinkedRun && wasRun ? [name] : []],
  ];
  return own.filter(([, names]) => names.length > 0);
};
