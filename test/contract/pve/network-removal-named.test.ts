/**
 * An interface removed from the stack that another interface of its node still names (a VLAN on it made by hand, a
 * bridge with it as a port), against the fake PVE: PVE's writer dies on the file its DELETE would leave (`vlan
 * 'vmbr9.10' - unable to find parent 'vmbr9'`, [PC] f665029 src/PVE/Network/Interfaces.pm:969, bridge ports :1023,
 * bond slaves :900), a 500. Regression: the plan said `vmbr9 to be deleted if this plan destroys it` and the destroy
 * failed on that 500. Now the plan says PVE refuses it and why, and the destroy refuses in the same words, nothing
 * sent. So too on a node whose file PVE's writer already refuses (an mtu edited by hand above its parent's): every
 * DELETE there dies on the whole file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pveDomain } from '../../../handlers/pve/domain';
import { type FakePve, startFakePve } from '../../fakes/pve/server';
import { call } from '../../fakes/pve/test-client';
import { bridgeStanza, interfacesFile } from '../../support/pve-network-node';
import { invoke, invokeBatch } from '../../support/run-handler';
import { VirtualClock } from '../../support/virtual-clock';

const PHYSICAL = ['eno1', 'enp2s0'];
const env = { PROXMOX_VE_API_TOKEN: 'root@pam!homelab=fake-secret-0000' };

let fake: FakePve;
let clock: VirtualClock;
let runtime: string;
beforeEach(async () => {
  clock = new VirtualClock();
  runtime = mkdtempSync(join(tmpdir(), 'homelab-traces-'));
  fake = await startFakePve({ nodes: ['n3'], now: clock.now, network: { n3: { physical: PHYSICAL } } });
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

/** vmbr9's removal: the plan names `refusal`, and the destroy refuses in the same words and `fix`, sending nothing. */
const expectRemovalRefused = async (refusal: string, fix: string) => {
  const removing = net({ removing: { n3: ['vmbr9'] }, reloadForeignChanges: false });
  const plan = await invokeBatch(pveDomain(), target(), { net: { kind: 'network-apply', spec: removing } }, hookEnv());
  expect(plan.result?.['net.summary']).toBe(`n3: settled, vmbr9 to be deleted if this plan destroys it (${refusal})`);
  fake.requests.length = 0;
  const identity = { node: 'n3', iface: 'vmbr9', type: 'bridge' };
  const destroyed = await invoke(pveDomain(), 'network-interface', 'destroy', target(), identity, hookEnv(), clock);
  expect(destroyed.code).toBe(1);
  expect(destroyed.stderr.split('\n').pop()).toBe(
    `network-interface destroy: interface vmbr9 on n3 cannot be removed: ${refusal}; nothing was staged. ${fix}; ` +
      'then apply again',
  );
  expect(writes()).toEqual([]);
};

test('a removed bridge a VLAN rides on: the plan says PVE refuses deleting it, the destroy refuses', async () => {
  await create({ iface: 'vmbr9', type: 'bridge', bridge_ports: 'enp2s0', autostart: '1' });
  await create({ iface: 'vmbr9.10', type: 'vlan', autostart: '1' });
  expect((await invoke(pveDomain(), 'network-apply', 'apply', target(), net(), env, clock)).code).toBe(0);
  await expectRemovalRefused(
    'PVE refuses that while VLAN vmbr9.10 has it as its device',
    'Remove that interface, or make it name another, on the node or in this stack',
  );
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

// A file edited by hand so that it already breaks PVE's writer (check_mtu, [PC] f665029
// src/PVE/Network/Interfaces.pm:96-110): every write of that node dies, a DELETE included.
const BROKEN = interfacesFile(PHYSICAL, [
  bridgeStanza('vmbr5', 'eno1', { extra: ['\tmtu 9000'] }),
  bridgeStanza('vmbr9', 'enp2s0'),
]);

/** The fake PVE again, its node n3 running BROKEN. */
const withBrokenFile = async () => {
  await fake.stop();
  fake = await startFakePve({
    nodes: ['n3'],
    now: clock.now,
    network: { n3: { physical: PHYSICAL, running: BROKEN } },
  });
};

test('a removal on a node whose file breaks check_mtu: the plan says PVE refuses it, the destroy refuses', async () => {
  await withBrokenFile();
  await expectRemovalRefused(
    "PVE refuses that while bridge vmbr5's mtu 9000 is above its port eno1's mtu 1500 (unset: PVE takes 1500)",
    "Fix those settings on the node by hand: PVE's writer refuses its file as it is, and a removal runs before this " +
      "stack's changes are staged",
  );
});

test("PVE's own DELETE on that node dies on the file (so the refusal above is PVE's)", async () => {
  await withBrokenFile();
  const answer = await call(fake.url, 'DELETE', '/nodes/n3/network/vmbr9');
  expect(answer.status).toBe(500);
  expect(JSON.stringify(answer.body)).toContain("interface 'eno1' - mtu 1500 is lower than 'vmbr5' - mtu 9000");
});
