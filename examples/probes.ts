/**
 * A template unit and its instances, a drop-in, and a fleet of plain services on one host: what the
 * e2e test and the Ansible bench run. The host comes from HOMELAB_SSH_HOST/PORT/HOST_KEY, the key
 * from HOMELAB_SSH_KEY; HOMELAB_PROBES lists the instances, HOMELAB_RETIRED_PROBES the retired ones.
 */
import { App, TerraformStack } from 'cdktf';
import type { Construct } from 'constructs';
import { renderUnit, SshHost, SystemdDropIn, SystemdUnit } from '../index';

export interface ProbesStackProps {
  readonly host: string;
  readonly port: number;
  readonly hostKey: string;
  /** Instances of the probe template, e.g. `tty8`. @default - none, and no template either */
  readonly probes?: readonly string[];
  /** Of `probes`, those to retire (stop and disable) on the next apply. @default - none */
  readonly retiredProbes?: readonly string[];
  /** The probes' log level, set by a drop-in on the first probe. @default "info" */
  readonly probeLevel?: string;
  /** How many plain services `hf-fleet-<n>.service` to run. @default 0 */
  readonly fleet?: number;
  /** A fleet member whose ExecStart fails, to show a partial failure. @default - none */
  readonly brokenFleetMember?: number;
}

export class ProbesStack extends TerraformStack {
  constructor(scope: Construct, id: string, props: ProbesStackProps) {
    super(scope, id);
    const node = new SshHost(this, 'node', {
      host: props.host,
      port: props.port,
      hostKey: props.hostKey,
      privateKeyEnv: 'HOMELAB_SSH_KEY',
    });
    const probes = props.probes ?? [];
    if (probes.length > 0) {
      const probe = new SystemdUnit(this, 'probe', {
        host: node,
        name: 'hf-probe@.service',
        content: renderUnit([
          { name: 'Unit', lines: [['Description', 'homelab probe on %i']] },
          {
            name: 'Service',
            lines: [['ExecStart', '/bin/sh -c "echo probing %i at level $$LEVEL; exec sleep infinity"']],
          },
          { name: 'Install', lines: [['WantedBy', 'multi-user.target']] },
        ]),
      });
      const instances = probes.map((tty) => probe.instance(tty, { retired: props.retiredProbes?.includes(tty) }));
      new SystemdDropIn(this, 'probe-level', {
        unit: instances[0]!,
        name: '10-level',
        content: renderUnit([{ name: 'Service', lines: [['Environment', `LEVEL=${props.probeLevel ?? 'info'}`]] }]),
      });
    }
    for (let n = 0; n < (props.fleet ?? 0); n += 1) {
      new SystemdUnit(this, `fleet-${n}`, {
        host: node,
        name: `hf-fleet-${n}.service`,
        content: renderUnit([
          { name: 'Unit', lines: [['Description', `homelab fleet member ${n}`]] },
          {
            name: 'Service',
            lines: [['ExecStart', n === props.brokenFleetMember ? '/bin/false' : '/bin/sleep infinity']],
          },
          { name: 'Install', lines: [['WantedBy', 'multi-user.target']] },
        ]),
      });
    }
  }
}

if (require.main === module) {
  const env = process.env;
  const list = (value: string | undefined) => (value ?? '').split(',').filter((item) => item !== '');
  const app = new App();
  new ProbesStack(app, 'probes', {
    host: env.HOMELAB_SSH_HOST ?? '127.0.0.1',
    port: Number(env.HOMELAB_SSH_PORT ?? 22),
    hostKey: env.HOMELAB_SSH_HOST_KEY ?? '',
    probes: list(env.HOMELAB_PROBES),
    retiredProbes: list(env.HOMELAB_RETIRED_PROBES),
    probeLevel: env.HOMELAB_PROBE_LEVEL,
    fleet: Number(env.HOMELAB_FLEET ?? 0),
    brokenFleetMember: env.HOMELAB_FLEET_BROKEN === undefined ? undefined : Number(env.HOMELAB_FLEET_BROKEN),
  });
  app.synth();
}
