/**
 * Links a batch apply moves beyond a unit's own enable, and how its undo puts links back. An instance has no
 * file: when the apply rewrites its template, the instances enabled from the old [Install] keep its links
 * unless they are re-enabled (measured, systemd 252: the read then said in sync while the old target still
 * wanted them), under /etc and, for those enabled until reboot, under /run alone (a reenable would enable
 * them for good, and took the /run links of one enabled both ways); but those its disable by its name unlinks,
 * linked again after it (`keptInstances`). An undo links a unit again from the file
 * it put back, under /etc where it was enabled and under /run where the apply's disable or reenable took
 * links its [Install] made there.
 */
import type { LinkVerb } from '../../src/linux/root-helper';
import { unitOf } from '../../src/linux/unit-batch';
import {
  batchTemplateOf,
  instancesIn,
  linkedAgain,
  reenabledInstances,
  unlinkedByTemplate,
} from '../../src/linux/unit-template-disable';
import type { Relinked } from '../../src/linux/unit-intent';
import { enablementOf } from '../../src/linux/unit-state';
import type { EnableStep } from '../../src/linux/unit-enable-step';
import { isTemplate } from '../../src/linux/unit-name';
import { isActive, type Track } from './unit-track';

/**
 * Whether the apply writes the file of the track's unit, or of its template for an instance: in this batch,
 * the template's track comes first and wrote it.
 */
export const rewritten = (track: Track, tracks: readonly Track[]): boolean => {
  const { change } = track.item;
  if (track.wrote || change.sort !== 'instance') return track.wrote;
  const { template, directory } = change.spec;
  return tracks.some(
    ({ item, wrote }) =>
      wrote &&
      item.change.sort === 'unit' &&
      item.change.spec.name === template &&
      item.change.spec.directory === directory,
  );
};

/**
 * The instances declared enabled whose template, active in this batch, is disabled by its name, which unlinks them
 * (unit-template-disable.ts): each is enabled after that disable, its own step put off till then.
 */
export const enabledAgain = (tracks: readonly Track[]): Set<Track> => {
  const changes = tracks.map(({ item }) => item.change);
  return new Set(
    tracks.filter(({ item: { change } }) => {
      if (change.sort === 'drop-in') return false;
      const spec = batchTemplateOf(change, changes);
      const template = tracks.find((other) => spec !== undefined && other.item.change.spec === spec && isActive(other));
      return unlinkedByTemplate(change, spec, template?.before);
    }),
  );
};

/**
 * The instances a template's rewrite re-enables, by where the read found links to its file: `reenable` those
 * with links under /etc (enabled for good), then `reenable --runtime` those with links under /run (enabled
 * until reboot, alone or beside /etc), which acts there alone; but those the batch applies itself, each of
 * which re-enables on its own (`rewritten`).
 */
export const instancesToReenable = (track: Track, tracks: readonly Track[]): Relinked => {
  const { change } = track.item;
  if (change.sort !== 'unit' || !track.wrote) return { etc: [], run: [] };
  return reenabledInstances(
    change.spec,
    track.before,
    true,
    tracks.map(({ item }) => item.change),
  );
};

/**
 * The unit's own name where its reenable (a rewrite's, or for links its [Install] does not make) takes links under
 * /run that its [Install] makes (an `enable --runtime` beside the enable, by hand): the root helper's reenable unlinks
 * there first (root-helper.ts `linkSteps`), and the plan said nothing of them (measured, systemd 252). The pass of
 * `reenable --runtime` links them again as its new [Install] makes them, as for a template's instances.
 */
export const ownRuntimeAgain = (track: Track, step: EnableStep | undefined): readonly string[] => {
  const { change } = track.item;
  if (change.sort !== 'unit' || isTemplate(change.spec.name)) return [];
  const { links } = track.before;
  const run = links?.run ?? [];
  const made = links?.install === undefined ? run.length > 0 : run.some((path) => links.install?.includes(path));
  return step === 'reenable' && made ? [change.spec.name] : [];
};

/**
 * The instances the stack does not declare that the track's template's disable by its name unlinks
 * (unit-template-disable.ts `linkedAgain`): linked again after it, and by its undo, which disables it again.
 */
export const keptInstances = (track: Track, tracks: readonly Track[]): Relinked => {
  const { change } = track.item;
  if (change.sort !== 'unit') return { etc: [], run: [] };
  const batch = tracks.map(({ item }) => item.change);
  return linkedAgain(change.spec, track.before, rewritten(track, tracks), batch);
};

/**
 * How the undo links the track's unit (and a template's re-enabled instances) again, once its file is put
 * back: each verb with its names. Only where the links were there before and its [Install] made them: a link
 * it does not make is not put back, and an enable of a unit that had only such links would make new ones.
 */
export const relinkOf = (track: Track, isNew: boolean): Array<readonly [LinkVerb, readonly string[]]> => {
  const { before, switched } = track;
  const name = unitOf(track.item.change);
  const { etc: instances = [], run: runtime = [] } = track.instances ?? {};
  const run = before.links?.run ?? [];
  // The reenable of those under /etc unlinks under /run too: each that had links there gets them back.
  const touched = [...instances, ...runtime];
  const ofInstances: Array<readonly [LinkVerb, readonly string[]]> = [
    ['reenable', instances],
    ['reenable-runtime', instancesIn(name, run).filter((instance) => touched.includes(instance))],
  ];
  if (switched === undefined || isNew || unlinksOnly(track)) return ofInstances.filter(([, names]) => names.length > 0);
  const made = (paths: readonly string[]) =>
    before.links?.install === undefined
      ? paths.length > 0
      : paths.some((path) => before.links?.install?.includes(path));
  const enablement = enablementOf(before.status.unitFileState);
  const etc = enablement === 'enabled' && (before.links === undefined || made(before.links.etc));
  // The apply's enable never touches /run; its disable and reenable unlink there.
  const unlinkedRun = switched === 'disable' || switched === 'reenable' || switched === 'relink';
  const wasRun = before.links === undefined ? enablement === 'runtime' : made(run);
  const own: Array<readonly [LinkVerb, readonly string[]]> = [
    ['enable', etc ? [name] : []],
    ['enable-runtime', unlinkedRun && wasRun ? [name] : []],
  ];
  return [...own, ...ofInstances].filter(([, names]) => names.length > 0);
};

/**
 * The links under /etc the undo of a template's relink removes once it linked the template again (`relinkOf`): those
 * its [Install] makes that were not there before. `enable a@.service` makes every one, and no systemctl verb removes
 * a template alias alone (`disable b@.service` disables a@.service whole: measured, systemd 252), so the undo left
 * the alias the relink made, or a link removed by hand came back. Each goes alone (root-helper.ts `unlinkStep`); so
 * do those the enable of a template without DefaultInstance= made (`unlinksOnly`).
 */
export const unlinkedOnUndo = (track: Pick<Track, 'before' | 'switched' | 'wrote'>): readonly string[] => {
  const { links } = track.before;
  return (track.switched !== 'relink' && !unlinksOnly(track)) || links?.install === undefined
    ? []
    : links.install.filter((path) => !links.etc.includes(path));
};

/**
 * A template without DefaultInstance= whose file the apply kept and whose enable made its aliases alone (unit-diff.ts
 * `enableStep`): its undo unlinks those it made (`unlinkedOnUndo`), not `disable` it, which unlinked every instance,
 * nor enable it again, which fails once it makes nothing (`Destination unit ... is a non-template unit`: measured,
 * systemd 252).
 */
export const unlinksOnly = ({ before, switched, wrote }: Pick<Track, 'before' | 'switched' | 'wrote'>): boolean =>
  switched === 'enable' && !wrote && before.links?.aliasesOnly === true;
