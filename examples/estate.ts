/**
 * A small estate in one stack: metric servers on one Proxmox cluster and service units on one
 * host, the shape batched reads are for (one read per target, however many objects). The cluster
 * comes from PROXMOX_VE_ENDPOINT, the host from HOMELAB_SSH_HOST/PORT/HOST_KEY, sizes from
 * HOMELAB_ESTATE_SERVERS and HOMELAB_ESTATE_UNITS.
 */
import { App, TerraformStack } from 'cdktf';
import type { Construct } from 'constructs';
import { ProxmoxCluster, ProxmoxMetricServer, renderUnit, SshHost, SystemdUnit } from '../index';

export interface EstateStackProps {
  readonly endpoints: string[];
  readonly caFile?: string;
  readonly servers: number;
  readonly host: string;
  readonly port: number;
  readonly hostKey: string;
  readonly units: number;
}

export class EstateStack extends TerraformStack {
  constructor(scope: Construct, id: string, props: EstateStackProps) {
    super(scope, id);
    const pve = new ProxmoxCluster(this, 'pve', { endpoints: props.endpoints, caFile: props.caFile });
    for (let i = 0; i < props.servers; i++) {
      new ProxmoxMetricServer(this, `metrics-${i}`, {
        cluster: pve,
        id: `estate-${i}`,
        type: 'graphite',
        server: '10.0.0.5',
        port: 2003,
      });
    }
    const node = new SshHost(this, 'node', {
      host: props.host,
      port: props.port,
      hostKey: props.hostKey,
      privateKeyEnv: 'HOMELAB_SSH_KEY',
    });
    for (let i = 0; i < props.units; i++) {
      new SystemdUnit(this, `worker-${i}`, {
        host: node,
        name: `estate-worker-${i}.service`,
        content: renderUnit([
          { name: 'Unit', lines: [['Description', `estate worker ${i}`]] },
          { name: 'Service', lines: [['ExecStart', '/bin/sleep infinity']] },
          { name: 'Install', lines: [['WantedBy', 'multi-user.target']] },
        ]),
      });
    }
  }
}

if (require.main === module) {
  const env = process.env;
  const app = new App();
  new EstateStack(app, 'estate', {
    endpoints: (env.PROXMOX_VE_ENDPOINT ?? 'https://127.0.0.1:8006').split(','),
    caFile: env.PROXMOX_VE_CA_FILE || undefined,
    servers: Number(env.HOMELAB_ESTATE_SERVERS ?? 50),
    host: env.HOMELAB_SSH_HOST ?? '127.0.0.1',
    port: Number(env.HOMELAB_SSH_PORT ?? 22),
    hostKey: env.HOMELAB_SSH_HOST_KEY ?? '',
    units: Number(env.HOMELAB_ESTATE_UNITS ?? 20),
  });
  app.synth();
}
