/**
 * The Linux domain: one SSH connection per handler process, logged in as the run's role (a plan as
 * the read user, never with the write key), shared by every Linux kind; the table of kinds the
 * bundle serves (exactly the registry's Linux kinds); the batch apply that makes a host's
 * changes one transaction with one daemon-reload (`unit-transaction.ts`); and the destroy of the
 * units a destroy run gathered, as one batch (`unit-ops.ts`).
 */
import type { Clock } from '../../src/core/clock';
import type { ApplyItem, DestroyItem, HandlerDomain, KindContext } from '../../src/core/kind';
import { destroyOne } from '../../src/core/destroy-relay';
import type { KindsOf } from '../../src/core/registry';
import type { UnitChange } from '../../src/linux/unit-batch';
import { connectSsh, type Remote } from '../../src/linux/ssh';
import { describeHost, type SshTarget, sshTargetSchema, targetFor } from '../../src/linux/target';
import type { HostSession } from './session';
import type { UnitRemoval } from './unit-ops';

/** The clock times every command's deadline (see ssh-exec.ts). */
export type Connect = (target: SshTarget, env: NodeJS.ProcessEnv, clock: Clock) => Promise<Remote>;

const kinds = {
  'systemd-unit': async () => (await import('./systemd-unit')).systemdUnitKind,
  'systemd-instance': async () => (await import('./systemd-instance')).systemdInstanceKind,
  'systemd-drop-in': async () => (await import('./systemd-drop-in')).systemdDropInKind,
};

/** Every item's change (`ObjectKind.change`: each Linux kind gives one), as one transaction. */
const applyAll = async (
  session: HostSession,
  items: readonly ApplyItem<HostSession, UnitChange>[],
  context: KindContext,
) => {
  const changes = items.flatMap(({ name, after, change, basis }) =>
    change === undefined ? [] : [{ name, after, change, ...(basis !== undefined && { basis }) }],
  );
  return (await import('./unit-transaction')).applyUnits(session, changes, context);
};

/**
 * Destroys that reached one run together: the units and instances (those with a `removal`) as one batch
 * (`destroyUnits`: one stop command, one daemon-reload), the drop-ins each by their kind at once.
 */
const destroyAll = async (session: HostSession, items: readonly DestroyItem<HostSession, UnitRemoval>[]) => {
  const { destroyUnits } = await import('./unit-ops');
  const units = destroyUnits(
    session,
    items.flatMap(({ removal }) => removal ?? []),
  );
  return Promise.all(
    items.map(async (item) =>
      item.removal === undefined ? destroyOne(session, item) : (await units).get(item.removal),
    ),
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
  }) satisfies HandlerDomain<HostSession, SshTarget, KindsOf<'linux'>, UnitChange, UnitRemoval>;
