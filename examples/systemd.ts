/**
 * A host's node-check: a long-running agent, and a oneshot check its timer starts every minute.
 * The host comes from HOMELAB_SSH_HOST/PORT/USER/HOST_KEY; the private key from HOMELAB_SSH_KEY.
 * With HOMELAB_SSH_READ_USER set, plans log in as that user with the key in HOMELAB_SSH_READ_KEY.
 */
import { App, TerraformStack, TerraformVariable } from 'cdktf';
import type { Construct } from 'constructs';
import { renderUnit, SshHost, SystemdUnit } from '../index';

export interface NodeCheckStackProps {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly hostKey: string;
  /** The login of plans, with the key in HOMELAB_SSH_READ_KEY. @default - user, with HOMELAB_SSH_KEY */
  readonly readUser?: string;
  /** How long one run of the check takes. @default 2 */
  readonly checkSeconds?: number;
}

export class NodeCheckStack extends TerraformStack {
  constructor(scope: Construct, id: string, props: NodeCheckStackProps) {
    super(scope, id);
    const { checkSeconds, readUser, ...host } = props;
    const read = readUser === undefined ? {} : { readUser, readPrivateKeyEnv: 'HOMELAB_SSH_READ_KEY' };
    const node = new SshHost(this, 'node', { ...host, ...read, privateKeyEnv: 'HOMELAB_SSH_KEY' });
    const description = new TerraformVariable(this, 'agent_description', {
      type: 'string',
      default: 'homelab node agent',
    });
    // A boolean prop takes a variable too: the handler judges the value Terraform passes (`-var agent_enabled=false`).
    const enabled = new TerraformVariable(this, 'agent_enabled', { type: 'bool', default: true });
    new SystemdUnit(this, 'agent', {
      host: node,
      name: 'hf-agent.service',
      enabled: enabled.booleanValue,
      content: renderUnit([
        { name: 'Unit', lines: [['Description', description.stringValue]] },
        {
          name: 'Service',
          lines: [
            ['ExecStart', "/bin/sh -c 'exec sleep infinity # ${HOME}'"],
            ['Restart', 'on-failure'],
          ],
        },
        { name: 'Install', lines: [['WantedBy', 'multi-user.target']] },
      ]),
    });
    // The timer starts the check; the check itself is neither enabled nor started by us.
    const check = new SystemdUnit(this, 'check', {
      host: node,
      name: 'hf-node-check.service',
      enabled: false,
      started: false,
      content: renderUnit([
        { name: 'Unit', lines: [['Description', 'homelab node check']] },
        {
          name: 'Service',
          lines: [
            ['Type', 'oneshot'],
            ['ExecStart', `/bin/sh -c "sleep ${checkSeconds ?? 2}; test -d /etc"`],
          ],
        },
      ]),
    });
    const timer = new SystemdUnit(this, 'check-timer', {
      host: node,
      name: 'hf-node-check.timer',
      content: renderUnit([
        { name: 'Unit', lines: [['Description', 'run the node check every minute']] },
        {
          name: 'Timer',
          lines: [
            ['OnCalendar', 'minutely'],
            ['Unit', 'hf-node-check.service'],
          ],
        },
        { name: 'Install', lines: [['WantedBy', 'timers.target']] },
      ]),
    });
    // systemd refuses to start a timer whose unit is not loaded ("unit hf-node-check.service to
    // trigger not loaded", seen in CI when both applied at once): the check's file goes first, and
    // destroy removes the timer before it.
    timer.applyAfter(check);
  }
}

if (require.main === module) {
  const env = process.env;
  const app = new App();
  new NodeCheckStack(app, 'node-check', {
    host: env.HOMELAB_SSH_HOST ?? '127.0.0.1',
    port: Number(env.HOMELAB_SSH_PORT ?? 22),
    user: env.HOMELAB_SSH_USER ?? 'root',
    hostKey: env.HOMELAB_SSH_HOST_KEY ?? '',
    readUser: env.HOMELAB_SSH_READ_USER || undefined,
    checkSeconds:
      env.HOMELAB_EXAMPLE_CHECK_SECONDS === undefined ? undefined : Number(env.HOMELAB_EXAMPLE_CHECK_SECONDS),
  });
  app.synth();
}
