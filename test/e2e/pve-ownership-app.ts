/**
 * The app of test/e2e/pve-ownership.test.ts: on the fake PVE (PROXMOX_VE_ENDPOINT, its CA in
 * PROXMOX_VE_CA_FILE), the metric servers and bridges HOMELAB_OBJECTS lists as JSON, each under the
 * construct id it names, so the test can rename a construct, change a server's type, or add adopt: true
 * between synths without an app per case. An influxdb server may name its token's variable and tokenVersion.
 */
import { App, TerraformStack } from 'cdktf';
import { ProxmoxCluster, ProxmoxMetricServer, ProxmoxNetworkInterface } from '../../index';

/** One object of the app: a metric server (`type` graphite or influxdb) or a bridge (`iface` on `node`). */
type Declared =
  | {
      construct: string;
      id: string;
      type: 'graphite' | 'influxdb';
      server: string;
      port: number;
      adopt?: boolean;
      tokenEnv?: string;
      tokenVersion?: number;
    }
  | { construct: string; node: string; iface: string; comments?: string; adopt?: boolean };

const env = process.env;
const app = new App();
const stack = new TerraformStack(app, 'pve-ownership');
const cluster = new ProxmoxCluster(stack, 'pve', {
  endpoints: [env.PROXMOX_VE_ENDPOINT ?? 'https://127.0.0.1:18006'],
  caFile: env.PROXMOX_VE_CA_FILE,
});
for (const object of JSON.parse(env.HOMELAB_OBJECTS ?? '[]') as Declared[]) {
  if ('id' in object) {
    const { construct, id, type, server, port, adopt, tokenEnv, tokenVersion } = object;
    new ProxmoxMetricServer(stack, construct, { cluster, id, type, server, port, adopt, tokenEnv, tokenVersion });
  } else {
    const { construct, node, iface, comments, adopt } = object;
    new ProxmoxNetworkInterface(stack, construct, { cluster, node, iface, type: 'bridge', comments, adopt });
  }
}
app.synth();
