/**
 * The Linux domain: one SSH connection per handler process, shared by every Linux kind, and the
 * table of kinds the bundle serves (exactly the registry's Linux kinds).
 */
import type { Clock } from '../../src/core/clock';
import type { HandlerDomain } from '../../src/core/kind';
import type { KindsOf } from '../../src/core/registry';
import { connectSsh, type Remote } from '../../src/linux/ssh';
import { describeHost, type SshTarget, sshTargetSchema } from '../../src/linux/target';

/** A connected host: the remote shell and the target it was reached with. */
export interface HostSession {
  readonly remote: Remote;
  readonly target: SshTarget;
  /** `host:port`, for messages. */
  readonly host: string;
}

/** The clock times every command's deadline (see ssh-exec.ts). */
export type Connect = (target: SshTarget, env: NodeJS.ProcessEnv, clock: Clock) => Promise<Remote>;

export const linuxDomain = (connect: Connect = connectSsh) =>
  ({
    target: sshTargetSchema,
    describe: describeHost,
    connect: async (target, context) => ({
      remote: await connect(target, context.env, context.clock),
      target,
      host: `${target.host}:${target.port}`,
    }),
    close: async (session) => session.remote.close(),
    kinds: {
      'systemd-unit': async () => (await import('./systemd-unit')).systemdUnitKind,
      'systemd-instance': async () => (await import('./systemd-instance')).systemdInstanceKind,
      'systemd-drop-in': async () => (await import('./systemd-drop-in')).systemdDropInKind,
    },
  }) satisfies HandlerDomain<HostSession, SshTarget, KindsOf<'linux'>>;
