/**
 * A token that cannot see bridges (PVE lists a bridge only with SDN.Audit or SDN.Use on it) against
 * the fake PVE: every reading that would call a bridge absent fails naming SDN.Audit and the token's
 * variable, and no apply or destroy acts on what it cannot see (issue 16 item 5).
 */
import { pveDomain } from '../../../handlers/pve/domain';
import { type FakePve, startFakePve, type TokenGrant } from '../../fakes/pve/server';
import { invoke, invokeBatch } from '../../support/run-handler';

const TOKENS: Record<string, TokenGrant> = {
  // A role of Sys.Audit + Sys.Modify on / only: enough to stage and reload, blind to bridges.
  'ops@pve!net': { secret: 'blind-secret', privileges: 'modify', sdnAudit: false },
  'ops@pve!vmbr1': { secret: 'one-secret', privileges: 'modify', sdnAudit: ['vmbr1'] },
};
const BLIND = { PROXMOX_VE_API_TOKEN: 'ops@pve!net=blind-secret' };
const SEES_VMBR1 = { PROXMOX_VE_API_TOKEN: 'ops@pve!vmbr1=one-secret' };
const VMBR1 = { node: 'n2', iface: 'vmbr1', type: 'bridge', options: { bridge_ports: ['enp2s0'] } } as const;
const VLAN = { node: 'n2', iface: 'vmbr0.40', type: 'vlan', options: {} } as const;
const SDN_AUDIT = /cannot be read.*SDN\.Audit \(or SDN\.Use\) on \/sdn\/zones\/localnetwork\/vmbr1/;

let fake: FakePve;
beforeEach(async () => {
  fake = await startFakePve({ nodes: ['n1', 'n2'], tokens: TOKENS });
});
afterEach(() => fake.stop());

const target = () => ({ endpoints: [fake.url], tokenEnv: 'PROXMOX_VE_API_TOKEN', insecure: true });
const writes = () => fake.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);
/** vmbr1 exists on n2, live: a token that cannot see it must not call it absent. */
const withVmbr1 = () => {
  const { running } = fake.interfacesFiles('n2');
  fake.setInterfacesFiles('n2', { running: `${running}auto vmbr1\niface vmbr1 inet manual\n\tbridge-ports enp2s0\n` });
};

test('a plan with a blind token reads an existing bridge as unreadable naming SDN.Audit, never as absent', async () => {
  withVmbr1();
  const batch = await invokeBatch(pveDomain(), target(), { a: { kind: 'network-interface', spec: VMBR1 } }, BLIND);
  expect(batch.result?.['a.in_sync']).toBe('false');
  expect(batch.result?.['a.summary']).toMatch(SDN_AUDIT);
  expect(batch.result?.['a.summary']).not.toMatch(/is absent/);
  expect(batch.result?.['a.summary']).toContain('the token in PROXMOX_VE_API_TOKEN holds neither');
  expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toContain('GET /api2/json/access/permissions');
});

test('an apply with a blind token sends no create for a bridge it cannot see, and says why', async () => {
  withVmbr1();
  const applied = await invoke(pveDomain(), 'network-interface', 'apply', target(), VMBR1, BLIND);
  expect(applied.code).toBe(1);
  expect(applied.stderr).toMatch(SDN_AUDIT);
  expect(writes()).toEqual([]);
});

test('a destroy with a blind token does not report a bridge it cannot see as already absent', async () => {
  withVmbr1();
  const identity = { node: 'n2', iface: 'vmbr1', type: 'bridge' };
  const destroyed = await invoke(pveDomain(), 'network-interface', 'destroy', target(), identity, BLIND);
  expect(destroyed.code).toBe(1);
  expect(destroyed.stderr).toMatch(SDN_AUDIT);
  expect(destroyed.stderr).not.toMatch(/already absent/);
});

test("a VLAN on a bridge the token cannot see is unreadable, not 'VLAN device not on n2'", async () => {
  const batch = await invokeBatch(pveDomain(), target(), { v: { kind: 'network-interface', spec: VLAN } }, BLIND);
  expect(batch.result?.['v.summary']).toMatch(/interface vmbr0\.40 on n2 cannot be read.*localnetwork\/vmbr0/);
});

// Issue 27 item 6: the plan called the VLAN unreadable, and the apply staged its MTU all the same.
test('an apply with a blind token stages nothing on a VLAN of a bridge it cannot see', async () => {
  const { running } = fake.interfacesFiles('n2');
  fake.setInterfacesFiles('n2', { running: `${running}auto vmbr0.40\niface vmbr0.40 inet manual\n` });
  const mtu = { ...VLAN, options: { mtu: 1400 } };
  const batch = await invokeBatch(pveDomain(), target(), { v: { kind: 'network-interface', spec: mtu } }, BLIND);
  expect(batch.result?.['v.summary']).toMatch(/cannot be read.*localnetwork\/vmbr0/);
  const applied = await invoke(pveDomain(), 'network-interface', 'apply', target(), mtu, BLIND);
  expect(applied.code).toBe(1);
  expect(applied.stderr).toMatch(/interface vmbr0\.40 on n2 cannot be read: .*localnetwork\/vmbr0, .*nothing was/);
  expect(writes()).toEqual([]);
});

test('a token with SDN.Audit on the bridge reads a missing bridge as absent and creates it', async () => {
  const read = await invoke(pveDomain(), 'network-interface', 'read', target(), VMBR1, SEES_VMBR1);
  expect(read.result?.summary).toBe('interface vmbr1 on n2 is absent');
  const applied = await invoke(pveDomain(), 'network-interface', 'apply', target(), VMBR1, SEES_VMBR1);
  expect([applied.code, writes()]).toEqual([0, ['POST /api2/json/nodes/n2/network']]);
});

test('a bridge the list shows costs no permission query', async () => {
  withVmbr1();
  await invokeBatch(pveDomain(), target(), { a: { kind: 'network-interface', spec: VMBR1 } }, SEES_VMBR1);
  expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api2/json/nodes/n2/network']);
});
