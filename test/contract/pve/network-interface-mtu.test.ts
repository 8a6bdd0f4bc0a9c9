/**
 * PVE's writer dies (500) on a node whose file breaks check_mtu ([PC] f665029 src/PVE/Network/Interfaces.pm:96-110):
 * a bridge above a port (:1027), a bond slave above its bond (:905), a VLAN above its device (:982). A plan that read
 * such an interface as only absent or changed promised an apply PVE refuses: the plan fails, the apply sends nothing.
 */
import { pveDomain } from '../../../handlers/pve/domain';
import { type FakePve, startFakePve } from '../../fakes/pve/server';
import { invoke, invokeBatch } from '../../support/run-handler';

const env = { PROXMOX_VE_API_TOKEN: 'root@pam!homelab=fake-secret-0000' };
const VMBR1 = { node: 'n2', iface: 'vmbr1', type: 'bridge' } as const;
const bridge = (options: Record<string, unknown> = {}) => ({
  ...VMBR1,
  options: { cidr: '10.10.0.2/24', bridge_ports: ['enp2s0'], autostart: true, ...options },
});
const bond = (options: Record<string, unknown>) => ({ node: 'n2', iface: 'bond0', type: 'bond', options });

let fake: FakePve;
beforeEach(async () => {
  fake = await startFakePve({ nodes: ['n1', 'n2', 'n3'] });
});
afterEach(() => fake.stop());

const target = () => ({ endpoints: [fake.url], tokenEnv: 'PROXMOX_VE_API_TOKEN', insecure: true });
const run = (verb: 'read' | 'apply', object: object) =>
  invoke(pveDomain(), 'network-interface', verb, target(), object, env);
const plan = async (...specs: object[]) => {
  const objects = Object.fromEntries(specs.map((spec, i) => [`o${i}`, { kind: 'network-interface', spec }]));
  return invokeBatch(pveDomain(), target(), objects, env);
};
const lastLine = (text: string) => text.split('\n').pop();
const writes = () => fake.requests.filter((r) => r.method !== 'GET');
/** n2's running file with `stanzas` added (and nothing staged). */
const addStanzas = (stanzas: string) => {
  const { running } = fake.interfacesFiles('n2');
  fake.setInterfacesFiles('n2', { running: `${running}${stanzas}` });
};
const JUMBO_NIC = 'iface enp2s0 inet manual\n\tmtu 9000\n';

const FIX = 'Raise the lower mtu or lower the higher one, on the node or where this stack declares that interface';
const planFailure = (conflicts: string) =>
  `batch read: Network interfaces have an mtu PVE refuses: on n2: ${conflicts}; PVE's writer refuses any stage on ` +
  `a node where one holds, so nothing can be applied there. ${FIX}; then plan again`;
const applyFailure = (iface: string, conflicts: string) =>
  `network-interface apply: interface ${iface} on n2 cannot be staged: ${conflicts}, and PVE's writer refuses any ` +
  `stage on the node while one holds; nothing was staged. ${FIX}; then apply again`;

test("a bridge whose mtu is above its port's fails the plan, is not staged, unless the stack raises it", async () => {
  const jumbo = bridge({ mtu: 9000 });
  const above = "bridge vmbr1's mtu 9000 is above its port enp2s0's mtu 1500 (unset: PVE takes 1500)";
  const batch = await plan(jumbo);
  expect(batch.code).toBe(1);
  expect(lastLine(batch.stderr)).toBe(planFailure(above));
  const applied = await run('apply', jumbo);
  expect([applied.code, lastLine(applied.stderr)]).toEqual([1, applyFailure('vmbr1', above)]);
  expect(writes()).toEqual([]);
  // A port the same stack declares counts with its declared mtu: refused at 1500, planned and staged at 9000.
  const onBond = bridge({ mtu: 9000, bridge_ports: ['bond0'] });
  const port = (mtu: number) => bond({ slaves: ['enp2s0'], mtu });
  expect(lastLine((await plan(onBond, port(1500))).stderr)).toBe(
    planFailure("bridge vmbr1's mtu 9000 is above its port bond0's mtu 1500"),
  );
  expect((await plan(onBond, port(9000))).result?.['o0.summary']).toBe('interface vmbr1 on n2 is absent');
  expect((await run('apply', port(9000))).code).toBe(0);
  expect((await run('apply', onBond)).code).toBe(0);
  expect(fake.interfacesFiles('n2').staged).toMatch(/iface vmbr1 inet static[^]*mtu 9000/);
});

// A bridge port <device>.<id> without a stanza is a VLAN with its device's mtu, unset on a bond too (:1012-1020).
test("a bridge on a <bond>.<id> port is above it when the bond has no mtu, as PVE's writer reads it", async () => {
  const port = bond({ slaves: ['enp2s0'] });
  expect((await run('apply', port)).code).toBe(0);
  const jumbo = bridge({ mtu: 9000, bridge_ports: ['bond0.20'] });
  const above = "bridge vmbr1's mtu 9000 is above its port bond0.20's mtu 1500 (unset: PVE takes 1500)";
  expect(lastLine((await plan(jumbo, port)).stderr)).toBe(planFailure(above));
  fake.requests.length = 0;
  expect(lastLine((await run('apply', jumbo)).stderr)).toBe(applyFailure('vmbr1', above));
  expect(writes()).toEqual([]);
});

test("a bond below a slave's mtu fails the plan and is not staged; a bond without one takes its slaves'", async () => {
  addStanzas(JUMBO_NIC);
  const pinned = bond({ slaves: ['enp2s0'], mtu: 1500 });
  const below = "slave enp2s0's mtu 9000 is above its bond bond0's mtu 1500";
  expect(lastLine((await plan(pinned)).stderr)).toBe(planFailure(below));
  const applied = await run('apply', pinned);
  expect([applied.code, lastLine(applied.stderr)]).toEqual([1, applyFailure('bond0', below)]);
  expect(writes()).toEqual([]);
  const unset = bond({ slaves: ['enp2s0'] });
  expect((await plan(unset)).result?.['o0.summary']).toBe('interface bond0 on n2 is absent');
  expect((await run('apply', unset)).code).toBe(0);
  expect(fake.interfacesFiles('n2').staged).toContain('bond-slaves enp2s0');
});

test("a VLAN above its device's mtu fails the plan and is not staged, unless the stack raises the device", async () => {
  const vlan = { node: 'n2', iface: 'vmbr1.20', type: 'vlan', options: { mtu: 9000 } };
  const device = (mtu?: number) => bridge(mtu === undefined ? {} : { mtu });
  const above = "VLAN vmbr1.20's mtu 9000 is above its device vmbr1's mtu 1500 (unset: PVE takes 1500)";
  expect(lastLine((await plan(vlan, device())).stderr)).toBe(planFailure(above));
  expect((await run('apply', device())).code).toBe(0);
  fake.requests.length = 0;
  expect(lastLine((await run('apply', vlan)).stderr)).toBe(applyFailure('vmbr1.20', above));
  expect(writes()).toEqual([]);
  // Raised with the stack, vmbr1 must ride a port at 9000 too: enp2s0 is one.
  addStanzas(JUMBO_NIC);
  expect((await plan(vlan, device(9000))).result?.['o0.summary']).toBe('interface vmbr1.20 on n2 is absent');
  expect((await run('apply', device(9000))).code).toBe(0);
  expect((await run('apply', vlan)).code).toBe(0);
});

// The stack lowers an interface under what the node already holds above it: a VLAN or a bridge PVE then refuses.
test('a declared mtu lowered under a VLAN or bridge the node holds fails the plan naming both', async () => {
  addStanzas(
    'iface bond1 inet manual\n\tbond-slaves enp2s0\n\tbond-mode balance-rr\n\tmtu 9000\n\n' +
      'iface bond1.30 inet manual\n\tmtu 9000\n\n' +
      'iface vmbr2 inet manual\n\tbridge-ports bond1\n\tbridge-stp off\n\tbridge-fd 0\n\tmtu 9000\n',
  );
  const lowered = { node: 'n2', iface: 'bond1', type: 'bond', options: { slaves: ['enp2s0'], mtu: 1500 } };
  const conflicts =
    "VLAN bond1.30's mtu 9000 is above its device bond1's mtu 1500, " +
    "bridge vmbr2's mtu 9000 is above its port bond1's mtu 1500";
  expect(lastLine((await plan(lowered)).stderr)).toBe(planFailure(conflicts));
  const applied = await run('apply', lowered);
  expect([applied.code, lastLine(applied.stderr)]).toEqual([1, applyFailure('bond1', conflicts.replace(', ', '; '))]);
  expect(writes()).toEqual([]);
});

// PVE's writer checks the whole file on each stage, so a pair made by hand refuses every stage there, and none else.
test('a node whose file already breaks the rule fails the plan only when the batch stages there', async () => {
  addStanzas('iface vmbr2 inet manual\n\tbridge-ports enp2s0\n\tbridge-stp off\n\tbridge-fd 0\n\tmtu 9000\n');
  const vmbr0 = (options: Record<string, unknown> = {}) => ({
    node: 'n2',
    iface: 'vmbr0',
    type: 'bridge',
    options: { autostart: true, cidr: '10.0.0.2/24', gateway: '10.0.0.254', bridge_ports: ['eno1'], ...options },
  });
  expect((await plan(vmbr0())).result?.['.in_sync']).toBe('true');
  const above = "bridge vmbr2's mtu 9000 is above its port enp2s0's mtu 1500 (unset: PVE takes 1500)";
  expect(lastLine((await plan(vmbr0({ comments: 'uplink' }))).stderr)).toBe(planFailure(above));
  expect(lastLine((await run('apply', vmbr0({ comments: 'uplink' }))).stderr)).toBe(applyFailure('vmbr0', above));
  expect(writes()).toEqual([]);
});
