/**
 * The apply's enable step for a unit or instance, decided from the state read before any write (the links judged as
 * the plan judges them: unit-link-judge.ts), and the name it acts on: an enable that only adds left an old
 * WantedBy='s link, and a template's reenable unlinks every instance (measured, systemd 252).
 */
import type { DesiredUnit, LiveUnit } from './unit-control';
import { aliasesMade, aliasFound, isDefaultInstanced, linksDriftOf } from './unit-link-judge';
import { hasLinkDrift } from './unit-links';
import { isTemplate } from './unit-name';
import { enablementOf } from './unit-state';

/**
 * Enable or disable, decided from the state read before any write, so that it runs before the
 * host's one reload and that reload shows it. A unit systemd had not loaded (a new file, an instance
 * of a new template, a masked one) reads no enablement: it is enabled when declared so (one whose
 * [Install] names nothing to link is never declared so: unit-enable.ts), and so is one systemd calls `static`,
 * whose [Install] a drop-in the apply writes may bring (the read back judges it). One whose links are not those
 * its [Install] makes, or whose file (an instance: its template's) the apply rewrites, is re-enabled:
 * `enable` only adds, and the link of an old WantedBy= stayed (measured, systemd 252). One enabled until
 * reboot alone is enabled for good, or disabled under /run too. `rewritten`: its file, or an instance's
 * template's, is written by this apply.
 */
export const enableStep = (spec: DesiredUnit, before: LiveUnit, rewritten: boolean): EnableStep | undefined => {
  const enablement = enablementOf(before.status.unitFileState);
  const unread = before.status.loadState !== 'loaded' && enablement === undefined;
  const linked = enablement === 'enabled' || enablement === 'runtime';
  const drift = linksDriftOf(spec, before);
  if (!spec.enabled) return linked || hasLinkDrift(drift) ? 'disable' : undefined;
  // One whose links the read cannot compare is re-enabled, so they are those enable makes (unit-links.ts).
  const stray = (drift?.stray.length ?? 0) > 0 || drift?.unknown !== undefined;
  const kept = enablement === 'enabled' || (isDefaultInstanced(before) && !unread && enablement !== 'disabled');
  const missing = kept && (drift?.missing.length ?? 0) > 0;
  // A template without DefaultInstance=: its enable makes its aliases alone (none other is compared), where its
  // reenable unlinks every instance (measured, systemd 252).
  if (!rewritten && before.links?.aliasesOnly === true && (drift?.missing.length ?? 0) > 0) return 'enable';
  if ((rewritten && linked) || stray || missing) return !rewritten && aliasesMade(before) ? 'relink' : 'reenable';
  // `static` on the host: a drop-in the apply writes may bring its [Install] (unit-enable.ts `enableWords`).
  const unlinked = before.status.unitFileState === 'static' && !isTemplate(spec.name);
  return (enablement !== undefined && enablement !== 'enabled') || rewritten || unread || unlinked
    ? 'enable'
    : undefined;
};

export type EnableStep = 'enable' | 'reenable' | 'relink' | 'disable';

/**
 * The name its enable step acts on: its own, but a template's default instance where only the links named for it
 * are re-enabled or relinked (`relink` enables the template after), or unlinked for a template declared disabled
 * without an alias its enable made (unit-links.ts). A template's reenable or disable unlinks every instance (an
 * instance object's too: measured, systemd 252); its default instance's, only the links named for it, and its
 * reenable then links what the template's enable links, but for Alias= (measured).
 */
export const linkedName = (spec: DesiredUnit, before: LiveUnit, rewritten: boolean): string => {
  const instance = before.links?.defaultInstance;
  const step = enableStep(spec, before, rewritten);
  const unlinked = step === 'disable' && hasLinkDrift(linksDriftOf(spec, before)) && !aliasFound(before);
  const own = step === 'reenable' || step === 'relink' || unlinked;
  return instance !== undefined && own && !rewritten ? instance : spec.name;
};

/**
 * Whether an enable or disable shows only after a reload: a loaded instance keeps its old
 * UnitFileState until one, and Alias= and Also= name units the manager learns of only in one
 * (measured, systemd 252). A plain unit's state follows at once.
 */
export const enableNeedsReload = (spec: DesiredUnit): boolean =>
  spec.content === undefined || /^\s*(Alias|Also)\s*=/m.test(spec.content);
