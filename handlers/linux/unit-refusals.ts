/**
 * What a host's batch apply refuses before it changes anything: a masked unit it may not unmask, a unit or an
 * instance declared enabled that `systemctl enable` cannot link (its [Install] and its drop-ins', the batch's and
 * the host's, name nothing: unit-enable.ts) or with an alias its [Install] does not make (unit-alias.ts), and a
 * file systemd would not load. Each refused object is left as it was.
 */
import { HandlerError } from '../../src/core/errors';
import { aliasRefusalWords, refusedAliases } from '../../src/linux/unit-alias';
import { type BatchFiles, batchFilesOf, enableInputOf, unitOf } from '../../src/linux/unit-batch';
import { unmaskAdvice } from '../../src/linux/unit-diff';
import { cannotEnable, ENABLE_FIX, enabledProblem } from '../../src/linux/unit-enable';
import { overriddenWords } from '../../src/linux/unit-loaded';
import { isMasked } from '../../src/linux/unit-state';
import type { HostShell } from './host-shell';
import type { Track } from './unit-track';

/** The batch's files (unit-batch.ts), from its tracks. */
export const batchFiles = (tracks: readonly Track[]): BatchFiles => batchFilesOf(tracks.map(({ item }) => item.change));

/**
 * Refuses, before anything is written, a masked unit it may not unmask, a unit or instance declared enabled that
 * enable cannot link (`files`: the batch's) or with an alias its [Install] does not make, and a file systemd
 * would not load.
 */
export const refuse = (shell: HostShell, track: Track, files: BatchFiles): void => {
  refuseMasked(shell, track);
  refuseUnlinkable(shell, track, files);
  refuseAliased(shell, track);
  const { overridden } = track.before;
  if (overridden === undefined) return;
  const what =
    overridden.declared.as === 'drop-in'
      ? `drop-in ${overridden.declared.path} on ${shell.host} is overridden`
      : `${unitOf(track.item.change)} on ${shell.host} is shadowed`;
  throw new HandlerError(what, `${overriddenWords(overridden)}; nothing was changed`);
};

const refuseMasked = (shell: HostShell, track: Track): void => {
  const { change } = track.item;
  if (change.sort === 'drop-in' || !isMasked(track.before.status) || change.spec.unmask) return;
  const detail = `systemd will not start or enable it; ${unmaskAdvice(change.spec)}`;
  throw new HandlerError(`${change.spec.name} on ${shell.host} is masked`, detail, {
    UnitFileState: track.before.status.unitFileState,
  });
};

const refuseUnlinkable = (shell: HostShell, track: Track, files: BatchFiles): void => {
  const { change } = track.item;
  if (change.sort === 'drop-in') return;
  const { spec } = change;
  const template = change.sort === 'instance' ? change.spec.template : undefined;
  const { text, dropIns } = enableInputOf(change, files);
  const why = cannotEnable({ ...spec, template }, text, dropIns, track.before.status, track.before.links?.dropIns);
  if (why === undefined) return;
  const rule = enabledProblem(change.sort);
  throw new HandlerError(
    `${spec.name} on ${shell.host} is declared enabled`,
    `${why}: ${rule.prop} ${rule.says}; nothing was changed: ${ENABLE_FIX}`,
  );
};

/** An instance declared enabled with an alias no systemctl verb the apply has removes: its removal by hand. */
const refuseAliased = (shell: HostShell, { item: { change }, before }: Track): void => {
  const aliases = change.sort === 'drop-in' ? undefined : refusedAliases(change.spec.enabled, before.links);
  if (aliases === undefined) return;
  const what = `${change.spec.name} on ${shell.host} has an alias its [Install] does not make`;
  throw new HandlerError(what, `${aliasRefusalWords(aliases)}; nothing was changed`);
};
