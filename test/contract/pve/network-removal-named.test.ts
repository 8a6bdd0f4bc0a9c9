/**
 * An interface removed from the stack that another interface of its node still names (a VLAN on it made by hand, a
 * bridge with it as a port), against the fake PVE: PVE's writer dies on the file its DELETE would leave (`vlan
 * 'vmbr9.10' - unable to find parent 'vmbr9'`, [PC] f665029 src/PVE/Network/Interfaces.pm:969, bridge ports :1023,
 * bond slaves :900), a 500. Regression: the plan said `vmbr9 to be deleted if this plan destroys it` and the destroy
 * failed on that 500. Now the plan says PVE refuses it and why, and the destroy refuses in the same words, nothing
 * sent.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pveDomain } from '../../../handlers/pve/domain';
import { type FakePve, startFakePve } from '../../fakes/pve/server';
import { call } from '../../fakes/pve/test-client';
import { invoke, invokeBatch } from '../../support/run-handler';
import { VirtualClock } from '../../support/virtual-clock';

const env = { PROXMOX_VE_API_TOKEN: 'root@pam!homelab=fake-secret-0000' };

let fake: FakePve;
let clock: VirtualClock;
let runtime: string;
beforeEach(async () => {
  clock = new VirtualClock();
  runtime = mkdtempSync(join(tmpdir(), 'homelab-traces-'));
  fake = await startFakePve({ nodes: ['n3'], now: clock.now, network: { n3: { physical: ['eno1', 'enp2s0'] } } });
});
afterEach(async () => {
  await fake.stop();
  rmSync(runtime, { recursive: true, force: true });
});

const target = () => ({ endpoints: [fake.url], tokenEnv: 'PROXMOX_VE_API_TOKEN', insecure: true });
const hookEnv = () => ({ ...env, HOMELAB_STACK: 'lab', XDG_RUNTIME_DIR: runtime });
const net = (extra: object = {}) => ({
  nodes: ['n3'],
  timeoutSeconds: 30,
  interfaces: {},
  reloadForeignChanges: true,
  ...extra,
});
const create = async (form: Record<string, string>) => {
  expect((await call(fake.url, 'POST', '/nodes/n3/network', { form })).status).toBe(200);
};
const writes = () => fake.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);

test('a removed bridge a VLAN rides on: the plan says PVE refuses deleting it, the destroy refuses', async () => {
  await create({ iface: 'vmbr9', type: 'bridge', bridge_ports: 'enp2s0', autostart: '1' });
  await create({ iface: 'vmbr9.10', type: 'vlan', autostart: '1' });
  expect((await invoke(pveDomain(), 'network-apply', 'apply', target(), net(), env, clock)).code).toBe(0);
  const removing = net({ removing: { n3: ['vmbr9'] }, reloadForeignChanges: false });
  const refusal = 'PVE refuses that while VLAN vmbr9.10 has it as its device';
  const plan = await invokeBatch(pveDomain(), target(), { net: { kind: 'network-apply', spec: removing } }, hookEnv());
  expect(plan.result?.['net.summary']).toBe(`n3: settled, vmbr9 to be deleted if this plan destroys it (${refusal})`);
  fake.requests.length = 0;
  const identity = { node: 'n3', iface: 'vmbr9', type: 'bridge' };
  const destroyed = await invoke(pveDomain(), 'network-interface', 'destroy', target(), identity, hookEnv(), clock);
  expect(destroyed.code).toBe(1);
  expect(destroyed.stderr.split('\n').pop()).toBe(
    `network-interface destroy: interface vmbr9 on n3 cannot be removed: ${refusal}; nothing was staged. Remove ` +
      'that interface, or make it name another, on the node or in this stack; then apply again',
  );
  expect(writes()).toEqual([]);
});

test('a removed bond a removed bridge uses reads as deleted, the bridge going first', async () => {
  await create({ iface: 'bond0', type: 'bond', slaves: 'enp2s0' });
  await create({ iface: 'vmbr9', type: 'bridge', bridge_ports: 'bond0', autostart: '1' });
  expect((await invoke(pveDomain(), 'network-apply', 'apply', target(), net(), env, clock)).code).toBe(0);
  const removing = net({ removing: { n3: ['bond0', 'vmbr9'] }, reloadForeignChanges: false });
  const plan = await invokeBatch(pveDomain(), target(), { net: { kind: 'network-apply', spec: removing } }, hookEnv());
  expect(plan.result?.['net.summary']).toBe('n3: settled, bond0, vmbr9 to be deleted if this plan destroys them');
  for (const identity of [
    { node: 'n3', iface: 'vmbr9', type: 'bridge' },
    { node: 'n3', iface: 'bond0', type: 'bond' },
  ]) {
    expect((await invoke(pveDomain(), 'network-interface', 'destroy', target(), identity, hookEnv(), clock)).code).toBe(
      0,
    );
  }
});
