/**
 * The PVE adoption e2e test's app (test/e2e/adoption-pve.test.ts): on the fake PVE (PROXMOX_VE_ENDPOINT,
 * its CA in PROXMOX_VE_CA_FILE), a metric server and a bridge on n1 that the test makes by hand first,
 * and a metric server it does not; HOMELAB_ADOPT=1 says adopt: true on the two made by hand, and
 * HOMELAB_DROP_HAND=1 removes their constructs from the code; HOMELAB_MISSING_PORT=1 adds a bridge on
 * a port n1 does not have.
 */
import { App, TerraformStack } from 'cdktf';
import { ProxmoxCluster, ProxmoxMetricServer, ProxmoxNetworkInterface } from '../../index';

const env = process.env;
const adopt = env.HOMELAB_ADOPT === '1';
const drop = env.HOMELAB_DROP_HAND === '1';

const app = new App();
const stack = new TerraformStack(app, 'adoption-pve');
const cluster = new ProxmoxCluster(stack, 'pve', {
  endpoints: [env.PROXMOX_VE_ENDPOINT ?? 'https://127.0.0.1:18006'],
  caFile: env.PROXMOX_VE_CA_FILE,
});
if (!drop) {
  new ProxmoxMetricServer(stack, 'hand', {
    cluster,
    id: 'hand',
    type: 'graphite',
    server: '192.0.2.9',
    port: 2003,
    adopt,
  });
  new ProxmoxNetworkInterface(stack, 'handbr', {
    cluster,
    node: 'n1',
    iface: 'vmbr7',
    type: 'bridge',
    autostart: true,
    adopt,
  });
}
new ProxmoxMetricServer(stack, 'fresh', { cluster, id: 'fresh', type: 'graphite', server: '192.0.2.10', port: 2003 });
if (env.HOMELAB_MISSING_PORT === '1') {
  new ProxmoxNetworkInterface(stack, 'portless', {
    cluster,
    node: 'n1',
    iface: 'vmbr8',
    type: 'bridge',
    bridgePorts: ['enp9s0'],
  });
}
app.synth();
