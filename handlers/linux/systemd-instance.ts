/**
 * The systemd-instance kind: an instance of a template unit (`probe@tty9.service`), read and acted
 * on by its own name and never given a file, so it can never shadow its template. Destroy stops and
 * disables it and leaves the template to its own object.
 */
import { defineKind, type Reading } from '../../src/core/kind';
import { instanceIdentity, instanceSpec, type InstanceSpec } from '../../src/linux/systemd-instance';
import type { UnitChange } from '../../src/linux/unit-batch';
import type { UnitIdentity } from '../../src/linux/systemd-unit';
import type { HostSession } from './session';
import { readRemovalStops } from './removal-stops';
import { fetchUnits, isForeign, type LiveUnits, markedBy, readingOf } from './systemd-unit';
import { destroyUnit, type UnitRemoval } from './unit-ops';
import { applyOne } from './unit-transaction';

export const systemdInstanceKind = defineKind({
  spec: instanceSpec,
  identity: instanceIdentity,

  fetch: (session: HostSession, specs: readonly InstanceSpec[], context, batch?: readonly UnitChange[]) =>
    fetchUnits(
      session,
      specs.map((spec) => ({ sort: 'instance', spec })),
      batch,
      context,
    ),
  read: (spec: InstanceSpec, live: LiveUnits, { stack }): Reading => readingOf({ sort: 'instance', spec }, live, stack),
  foreign: (spec: InstanceSpec, live: LiveUnits): boolean => isForeign(spec, live, false),
  markedBy: (spec: InstanceSpec, live: LiveUnits): string | undefined => markedBy(spec, live),
  change: (spec: InstanceSpec, owned): UnitChange => ({ sort: 'instance', spec, owned }),
  apply: (session: HostSession, spec: InstanceSpec, context) => applyOne(session, { sort: 'instance', spec }, context),
  removal: (unit: UnitIdentity, context, adopt): UnitRemoval => ({ unit, ownsFile: false, context, adopt }),
  destroy: (session: HostSession, unit: UnitIdentity, context, adopt) =>
    destroyUnit(session, { unit, ownsFile: false, context, adopt }),
  /** An instance the plan removes: the running units no stack declares that its destroy stops (removal-stops.ts). */
  readRemovals: (session: HostSession, removals, context, batch?: readonly UnitChange[]) =>
    readRemovalStops(session, removals, context, false, batch),
});
