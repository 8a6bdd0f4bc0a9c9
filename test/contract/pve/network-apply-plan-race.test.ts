/**
 * A node's staging changed between the plan and the apply, against the fake PVE: a declared interface the plan read
 * in sync (nothing to stage for it) got an mtu staged by hand, and the network apply, run for another interface of
 * that node, reloaded it though the plan named no change to it. The plan's reading of what each node has staged now
 * travels to the network apply (network-apply-basis.ts), which reloads no node that reads otherwise, while what the
 * same apply staged (its interfaces, a bond's slaves marked `auto`) refuses nothing.
 */
import { pveDomain } from '../../../handlers/pve/domain';
import type { FakePve } from '../../fakes/pve/server';
import { call } from '../../fakes/pve/test-client';
import { startTwoBridgeNodes } from '../../support/pve-network-node';
import { type ApplyEntry, invokeBatch, invokeBatchApply } from '../../support/run-handler';

const env = { PROXMOX_VE_API_TOKEN: 'root@pam!homelab=fake-secret-0000' };
const NICS = ['eno1', 'enp2s0', 'enp3s0', 'enp4s0', 'enp5s0'];

let fake: FakePve;
beforeEach(async () => {
  fake = await startTwoBridgeNodes(NICS);
});
afterEach(() => fake.stop());

const target = (extra: object = {}) => ({
  endpoints: [fake.url],
  tokenEnv: 'PROXMOX_VE_API_TOKEN',
  insecure: true,
  ...extra,
});
type Spec = { node: string; iface: string; type: string; options: Record<string, unknown> };
/** vmbr1 wants a comment it lacks (drifted); vmbr2 is declared as it runs (in sync). */
const vmbr1 = (node: string): Spec => ({
  node,
  iface: 'vmbr1',
  type: 'bridge',
  options: { bridge_ports: ['enp2s0'], autostart: true, comments: 'lab' },
});
const vmbr2 = (node: string): Spec => ({
  node,
  iface: 'vmbr2',
  type: 'bridge',
  options: { bridge_ports: ['enp3s0'], autostart: true },
});
const bond0 = (node: string): Spec => ({
  node,
  iface: 'bond0',
  type: 'bond',
  options: { slaves: ['enp4s0', 'enp5s0'], bond_mode: 'active-backup', autostart: true },
});
const DECLARED = [vmbr1('n2'), vmbr2('n2'), vmbr1('n3'), vmbr2('n3')];

/**
 * The stack as synth wires it: the network apply after every interface on its nodes (network-wiring.ts); the read's
 * query says so by `follows`, the apply's entries by `after`.
 */
const objects = (specs: readonly Spec[], applyOptions: object = {}): Record<string, ApplyEntry> => {
  const names = specs.map((spec) => `${spec.iface}_${spec.node}`);
  const interfaces: Record<string, string[]> = {};
  for (const spec of specs) interfaces[spec.node] = [...(interfaces[spec.node] ?? []), spec.iface].sort();
  const net = { nodes: ['n2', 'n3'], timeoutSeconds: 30, interfaces, ...applyOptions };
  return {
    ...Object.fromEntries(specs.map((spec, i) => [names[i], { kind: 'network-interface', spec }])),
    net: { kind: 'network-apply', spec: net, after: names },
  };
};

const asQuery = (entries: Record<string, ApplyEntry>) =>
  Object.fromEntries(
    Object.entries(entries).map(([name, { after = [], ...entry }]) => [
      name,
      { ...entry, ...(after.length > 0 && { follows: after }) },
    ]),
  );

/**
 * A plan of `specs`, `between` run after it (a hand at the web UI), then the apply of what the plan found drifted
 * with the plan's reading, as the saved plan's apply resource runs it.
 */
/** What a test changes of the stack (`applyOptions`, the network apply's props), the target and the apply's env. */
interface Changes {
  readonly applyOptions?: object;
  readonly target?: object;
  readonly env?: NodeJS.ProcessEnv;
}

const planThenApply = async (specs: readonly Spec[], between: () => Promise<unknown>, changes: Changes = {}) => {
  const { applyOptions = {}, env: envExtra = {} } = changes;
  const all = objects(specs, applyOptions);
  const plan =
    (await invokeBatch(pveDomain(), target(changes.target), asQuery(all), { ...env, ...envExtra })).result ?? {};
  await between();
  const sent = fake.requests.length;
  const drifted = Object.fromEntries(
    Object.entries(all).filter(([name]) => plan['.drifted']?.split(',').includes(name)),
  );
  const basis = { HOMELAB_BASIS: plan['.basis'] ?? '' };
  const applied = await invokeBatchApply(pveDomain(), target(changes.target), drifted, {
    ...env,
    ...basis,
    ...envExtra,
  });
  const writes = fake.requests.slice(sent).filter((r) => r.method !== 'GET');
  return { plan, applied, writes: writes.map((r) => `${r.method} ${r.path.replace('/api2/json/', '')}`) };
};
const byHand = (node: string, method: string, path: string, form?: Record<string, string>) =>
  call(fake.url, method, `/nodes/${node}/network${path}`, form === undefined ? {} : { form });
const mtuByHand = (node: string) => () =>
  byHand(node, 'PUT', '/vmbr2', { type: 'bridge', bridge_ports: 'enp3s0', autostart: '1', mtu: '1400' });

// Regression: the reload made vmbr2's mtu live, staged by hand after a plan that read vmbr2 in sync and named no
// change to it; it ran for vmbr1, the node's other interface, whose stage the plan did name.
test('an interface read in sync, then staged by hand, is not made live by a reload for another', async () => {
  const { plan, applied, writes } = await planThenApply(DECLARED, mtuByHand('n2'));
  expect(plan['.drifted']).toBe('vmbr1_n2,vmbr1_n3,net');
  expect(plan['net.summary']).toBe('n2: settled; n3: settled');
  expect(applied.code).toBe(1);
  expect(applied.stderr).toContain(
    'net: not applied: Network apply of n2, n3 cannot be applied as planned: on n2, vmbr2 reads otherwise than the ' +
      "plan read it (a field of a row in the node's view, an `auto` line, or an interface itself: staged or reverted " +
      'by someone else), so a reload would make that live, which the plan did not say; nothing was reloaded: plan ' +
      'again, and that plan reads what each node has staged as it is now',
  );
  // The interfaces stage as planned; no reload starts, so the hand's mtu stays staged, not live.
  expect(writes).toEqual(['PUT nodes/n2/network/vmbr1', 'PUT nodes/n3/network/vmbr1']);
  expect(fake.tasks()).toEqual([]);
  expect(fake.interfacesFiles('n2').running).not.toContain('mtu 1400');
  expect(fake.interfacesFiles('n2').staged).toContain('mtu 1400');
});

test('the next plan names the hand edit, and its apply converges', async () => {
  await planThenApply(DECLARED, mtuByHand('n2'));
  const { plan, applied } = await planThenApply(DECLARED, async () => undefined);
  expect(plan['vmbr2_n2.summary']).toBe('interface vmbr2 on n2 differs: mtu is 1400, want unset');
  expect(applied.code).toBe(0);
  expect(fake.interfacesFiles('n2').running).toContain('#lab');
  expect(fake.interfacesFiles('n2').running).not.toContain('mtu 1400');
  expect((await invokeBatch(pveDomain(), target(), asQuery(objects(DECLARED)), env)).result?.['.in_sync']).toBe('true');
});

test("what the apply stages itself refuses nothing: new interfaces, a bond marking its slaves 'auto'", async () => {
  const specs = [...DECLARED, bond0('n2'), bond0('n3')];
  const { applied, writes } = await planThenApply(specs, async () => undefined);
  expect(applied.code).toBe(0);
  expect(writes.filter((w) => /^PUT nodes\/n\d\/network$/.test(w))).toEqual([
    'PUT nodes/n2/network',
    'PUT nodes/n3/network',
  ]);
  expect(fake.interfacesFiles('n3').running).toMatch(/auto enp4s0\n/);
});

test('with reloadForeignChanges, an interface staged by someone else after the plan is not reloaded', async () => {
  const made = () => byHand('n3', 'POST', '', { iface: 'vmbr9', type: 'bridge', autostart: '1' });
  const { applied } = await planThenApply(DECLARED, made, { applyOptions: { reloadForeignChanges: true } });
  expect(applied.code).toBe(1);
  expect(applied.stderr).toContain('cannot be applied as planned: on n3, vmbr9 reads otherwise than the plan read it');
  expect(fake.tasks()).toEqual([]);
});

test('with reloadForeignChanges, what someone else staged before the plan, which it names, is reloaded', async () => {
  await byHand('n3', 'POST', '', { iface: 'vmbr9', type: 'bridge', autostart: '1' });
  const { plan, applied } = await planThenApply(DECLARED, async () => undefined, {
    applyOptions: { reloadForeignChanges: true },
  });
  expect(plan['net.summary']).toBe('n2: settled; n3: 8 staged lines, 1 by someone else: vmbr9');
  expect(applied.code).toBe(0);
  expect(fake.interfacesFiles('n3').running).toContain('iface vmbr9');
});

test('an edit landing on a later node while the chain reloads an earlier one stops the chain there', async () => {
  const staged = (text: string) => text.replace(/(iface vmbr2 inet manual\n(?:\t.*\n)*)/, '$1\tmtu 1400\n');
  fake.beforeNext('PUT', /nodes\/n2\/network$/, () =>
    fake.setInterfacesFiles('n3', { staged: staged(fake.interfacesFiles('n3').staged ?? '') }),
  );
  const { applied, writes } = await planThenApply(DECLARED, async () => undefined);
  expect(applied.code).toBe(1);
  expect(applied.stderr).toContain(
    "on n3, vmbr2 reads otherwise than the plan read it (a field of a row in the node's view, an `auto` line, or " +
      'an interface itself: staged or reverted by someone else), so a reload would make that live, which the plan ' +
      'did not say; n2 reloaded, nothing was reloaded on n3: plan again',
  );
  expect(writes.filter((w) => /^PUT nodes\/n\d\/network$/.test(w))).toEqual(['PUT nodes/n2/network']);
});

test("an apply without a plan's reading (an earlier version made its apply resource) reloads as before", async () => {
  const { applied } = await planThenApply(DECLARED, mtuByHand('n2'), {
    env: { HOMELAB_BASIS: '' },
  });
  expect(applied.code).toBe(0);
  expect(fake.interfacesFiles('n2').running).toContain('mtu 1400');
});

// Regression guard: a plan read with a token PVE lists no bridge to (no SDN.Audit) has no bridge row in its reading;
// the apply's token lists them, and they must not read as made after the plan.
test('a plan whose token sees no bridge refuses nothing at an apply whose token sees them', async () => {
  await fake.stop();
  const tokens = {
    'root@pam!homelab': { secret: 'fake-secret-0000', privileges: 'modify' },
    'audit@pve!ro': { secret: 'audit-secret', privileges: 'audit', sdnAudit: false },
  } as const;
  fake = await startTwoBridgeNodes(NICS, { tokens });
  const changes = { target: { readTokenEnv: 'PVE_READ' }, env: { PVE_READ: 'audit@pve!ro=audit-secret' } };
  const { plan, applied } = await planThenApply([bond0('n2'), bond0('n3')], async () => undefined, changes);
  expect(plan['.drifted']).toBe('bond0_n2,bond0_n3,net');
  expect(applied.stderr).not.toContain('cannot be applied as planned');
  expect(applied.code).toBe(0);
  expect(fake.tasks()).toHaveLength(2);
});
