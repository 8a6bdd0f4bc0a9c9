/**
 * The drop-ins the app declares for each host, found by the units they change: a drop-in's [Install] counts as its
 * unit's own for `systemctl enable` (unit-enable.ts), and a unit is declared before the drop-ins that name it, so
 * its rule and its default of `enabled` read them at synth. Without it, a unit whose drop-in adds WantedBy= was
 * refused `enabled: true`, and its `enabled` left out was false. A prefix's drop-ins (`a-.service.d/`) do not
 * count, as enable ignores them, and the refusal names them (a unit declared enabled by one planned a lie).
 */
import type { UnitContent } from '../../src/linux/render-unit';
import { prefixUnitsOf } from '../../src/linux/install-settings';
import type { InstallDropIn } from '../../src/linux/install-config';
import type { PrefixDropIn } from '../../src/linux/unit-enable';
import type { SshHost } from './ssh-host';

interface DeclaredDropIn extends InstallDropIn {
  /** The unit it changes, by name. */
  readonly unit: string;
}

const declared = new WeakMap<SshHost, DeclaredDropIn[]>();

/** Records a drop-in the app declares (and does not retire) on `host`. */
export const declareDropIn = (host: SshHost, unit: string, name: string, content: UnitContent): void => {
  const dropIns = declared.get(host) ?? [];
  declared.set(host, dropIns);
  dropIns.push({ unit, name, content });
};

/** The drop-ins the app declares on `host` for any of `units` (an instance: itself and its template). */
export const dropInsOf = (host: SshHost, units: readonly string[]): InstallDropIn[] =>
  (declared.get(host) ?? []).filter(({ unit }) => units.includes(unit)).map(({ name, content }) => ({ name, content }));

/**
 * The drop-ins the app declares on `host` for a prefix of any of `units` (`a-.service` for `a-b.service`): pid1
 * loads them, `systemctl enable` reads no [Install] of theirs (measured, systemd 252), so they never count for
 * `enabled`, and synth names one that brings [Install] in its refusal.
 */
export const prefixDropInsOf = (host: SshHost, units: readonly string[]): PrefixDropIn[] => {
  const prefixes = new Set(units.flatMap(prefixUnitsOf).filter((unit) => !units.includes(unit)));
  return (declared.get(host) ?? []).filter(({ unit }) => prefixes.has(unit));
};
