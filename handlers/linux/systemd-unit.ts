/**
 * The systemd-unit kind: every declared unit on a host read in one round trip; apply is a
 * transaction of one (`unit-transaction.ts`), destroy `destroyUnit` (a unit owns its file, templates
 * included).
 */
import { defineKind, type Reading } from '../../src/core/kind';
import type { LiveUnit } from '../../src/linux/unit-control';
import { unitIdentity, unitSpec, type UnitIdentity, type UnitSpec } from '../../src/linux/systemd-unit';
import { diffUnit, summarizeUnit } from '../../src/linux/unit-diff';
import { markStackOf, unitIsForeign } from '../../src/linux/unit-ownership';
import type { DesiredUnit } from '../../src/linux/unit-control';
import { readEntryOf, type UnitChange } from '../../src/linux/unit-batch';
import type { HostSession } from './session';
import { readUnits } from './read-units';
import { destroyUnit, type UnitRemoval } from './unit-ops';
import { applyOne } from './unit-transaction';

/** Live units in the order of the specs they were read for, from one read of the host. */
export interface LiveUnits {
  readonly host: string;
  readonly units: ReadonlyMap<string, LiveUnit>;
}

/** The reading of one unit or instance from its host's fetch. */
export const readingOf = (spec: DesiredUnit, { host, units }: LiveUnits): Reading => {
  const live = units.get(spec.name);
  if (live === undefined) throw new Error(`${spec.name} was not read`);
  const diff = diffUnit(spec, live);
  return { inSync: Object.keys(diff).length === 0, summary: summarizeUnit(spec, host, live, diff), diff };
};

/** Whether the unit or instance exists on the host without the stack's record (unit-ownership.ts). */
export const isForeign = (spec: DesiredUnit, { units }: LiveUnits, ownsFile: boolean): boolean => {
  const live = units.get(spec.name);
  return live !== undefined && unitIsForeign(live, ownsFile);
};

/** The stack the unit's or instance's record or intent names (unit-ownership.ts). */
export const markedBy = (spec: DesiredUnit, { units }: LiveUnits): string | undefined => {
  const live = units.get(spec.name);
  return live === undefined ? undefined : markStackOf(live);
};

export const systemdUnitKind = defineKind({
  spec: unitSpec,
  identity: unitIdentity,

  async fetch(session: HostSession, specs: readonly UnitSpec[]): Promise<LiveUnits> {
    const live = await readUnits(
      session,
      specs.map((spec) => readEntryOf({ sort: 'unit', spec })),
    );
    return { host: session.host, units: new Map(live.map(([entry, unit]) => [entry.unit, unit])) };
  },

  read: (spec: UnitSpec, live: LiveUnits): Reading => readingOf(spec, live),
  foreign: (spec: UnitSpec, live: LiveUnits): boolean => isForeign(spec, live, true),
  markedBy: (spec: UnitSpec, live: LiveUnits): string | undefined => markedBy(spec, live),
  change: (spec: UnitSpec): UnitChange => ({ sort: 'unit', spec }),
  apply: (session: HostSession, spec: UnitSpec, context) => applyOne(session, { sort: 'unit', spec }, context),
  removal: (unit: UnitIdentity, context, adopt): UnitRemoval => ({ unit, ownsFile: true, context, adopt }),
  destroy: (session: HostSession, unit: UnitIdentity, context, adopt) =>
    destroyUnit(session, { unit, ownsFile: true, context, adopt }),
});
