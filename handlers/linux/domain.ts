/**
 * The Linux domain: one SSH connection per handler process, logged in as the run's role (a plan as
 * the read user, never with the write key), shared by every Linux kind; the table of kinds the
 * bundle serves (exactly the registry's Linux kinds); the batch apply that makes a host's
 * changes one transaction with one daemon-reload (`unit-transaction.ts`); and the destroy of the
 * units a destroy run gathered, as one batch (`unit-ops.ts`).
 */
import type { Clock } from '../../src/core/clock';
import type { ApplyItem, DestroyItem, HandlerDomain, KindContext } from '../../src/core/kind';
import { parseAs } from '../../src/core/parse';
import { destroyEach } from '../../src/core/destroy-relay';
import type { KindsOf } from '../../src/core/registry';
import type { BatchItem, UnitChange } from '../../src/linux/unit-batch';
import { connectSsh, type Remote } from '../../src/linux/ssh';
import { describeHost, type SshTarget, sshTargetSchema, targetFor } from '../../src/linux/target';
import type { HostSession } from './session';

/** The clock times every command's deadline (see ssh-exec.ts). */
export type Connect = (target: SshTarget, env: NodeJS.ProcessEnv, clock: Clock) => Promise<Remote>;

const kinds = {
  'systemd-unit': async () => (await import('./systemd-unit')).systemdUnitKind,
  'systemd-instance': async () => (await import('./systemd-instance')).systemdInstanceKind,
  'systemd-drop-in': async () => (await import('./systemd-drop-in')).systemdDropInKind,
};

/** Each item's change, told apart by the kind the batch loaded for it. */
const changesOf = async (items: readonly ApplyItem<HostSession>[]): Promise<BatchItem[]> => {
  const unit = await kinds['systemd-unit']();
  const instance = await kinds['systemd-instance']();
  const dropIn = await kinds['systemd-drop-in']();
  const changeOf = ({ kind, spec }: ApplyItem<HostSession>): UnitChange => {
    if (kind === unit) return { sort: 'unit', spec: parseAs(unit.spec, spec, 'spec') };
    if (kind === instance) return { sort: 'instance', spec: parseAs(instance.spec, spec, 'spec') };
    return { sort: 'drop-in', spec: parseAs(dropIn.spec, spec, 'spec') };
  };
  return items.map((item) => ({ name: item.name, after: item.after, change: changeOf(item) }));
};

const applyAll = async (session: HostSession, items: readonly ApplyItem<HostSession>[], context: KindContext) =>
  (await import('./unit-transaction')).applyUnits(session, await changesOf(items), context);

/**
 * Destroys that reached one run together: the units and instances as one batch (`destroyUnits`: one
 * stop command, one daemon-reload), the drop-ins each by their kind at once.
 */
const destroyAll = async (session: HostSession, items: readonly DestroyItem<HostSession>[]) => {
  const unit = await kinds['systemd-unit']();
  const instance = await kinds['systemd-instance']();
  const units = items.flatMap((item, at) => (item.kind === unit || item.kind === instance ? [at] : []));
  const removals = units.map((at) => {
    const { kind, identity, context, adopt } = items[at] as DestroyItem<HostSession>;
    return { unit: parseAs(unit.identity, identity, 'identity'), ownsFile: kind === unit, context, adopt };
  });
  const { destroyUnits } = await import('./unit-ops');
  const others = items.flatMap((item, at) => (units.includes(at) ? [] : [item]));
  const [unitOutcomes, otherOutcomes] = await Promise.all([
    destroyUnits(session, removals),
    destroyEach(session, others),
  ]);
  return items.map((item, at) =>
    units.includes(at) ? unitOutcomes[units.indexOf(at)] : otherOutcomes[others.indexOf(item)],
  );
};

export const linuxDomain = (connect: Connect = connectSsh) =>
  ({
    target: sshTargetSchema,
    describe: describeHost,
    connect: async (target, context, role) => {
      const login = targetFor(target, role);
      return {
        remote: await connect(login, context.env, context.clock),
        target: login,
        host: `${target.host}:${target.port}`,
      };
    },
    close: async (session) => session.remote.close(),
    kinds,
    applyAll,
    destroyAll,
  }) satisfies HandlerDomain<HostSession, SshTarget, KindsOf<'linux'>>;
