/**
 * A network interface edited on its node between the plan and the apply, against the fake PVE. The apply read the
 * node again and staged what that read showed differing: a hand edit (an mtu staged in the web UI) was overwritten
 * by its PUT, and a deleted interface created again, neither named by the plan. The plan's reading now travels to
 * the apply (interface-basis.ts), which refuses that interface alone, stages nothing for it, and the network apply
 * after it reloads nothing, so the node is never reloaded half-written.
 */
import { pveDomain } from '../../../handlers/pve/domain';
import type { FakePve } from '../../fakes/pve/server';
import { call } from '../../fakes/pve/test-client';
import { startTwoBridgeNodes } from '../../support/pve-network-node';
import { type ApplyEntry, invokeBatch, invokeBatchApply } from '../../support/run-handler';

const env = { PROXMOX_VE_API_TOKEN: 'root@pam!homelab=fake-secret-0000' };

let fake: FakePve;
beforeEach(async () => {
  fake = await startTwoBridgeNodes(['eno1', 'enp2s0', 'enp3s0', 'enp4s0']);
});
afterEach(() => fake.stop());

const target = () => ({ endpoints: [fake.url], tokenEnv: 'PROXMOX_VE_API_TOKEN', insecure: true });
const bridge = (iface: string, port: string, node = 'n2') => ({
  node,
  iface,
  type: 'bridge',
  options: { bridge_ports: [port], autostart: true, comments: 'lab' },
});
const net = { nodes: ['n2', 'n3'], timeoutSeconds: 30, interfaces: { n2: ['vmbr1', 'vmbr2', 'vmbr3'], n3: ['vmbr1'] } };
/** The stack as synth wires it: the network apply after every interface on its nodes (network-wiring.ts). */
const objects = (...specs: Array<ReturnType<typeof bridge>>): Record<string, ApplyEntry> => ({
  ...Object.fromEntries(specs.map((spec) => [`${spec.iface}_${spec.node}`, { kind: 'network-interface', spec }])),
  net: { kind: 'network-apply', spec: net, after: specs.map((spec) => `${spec.iface}_${spec.node}`) },
});

/** A plan of `specs`, `between` run after it (a hand at the web UI), then the apply with the plan's reading. */
const planThenApply = async (specs: Array<ReturnType<typeof bridge>>, between: () => Promise<unknown>, extra = {}) => {
  const plan = (await invokeBatch(pveDomain(), target(), objects(...specs), env)).result ?? {};
  await between();
  const sent = fake.requests.length;
  const basis = { HOMELAB_BASIS: plan['.basis'] ?? '' };
  const applied = await invokeBatchApply(pveDomain(), target(), objects(...specs), { ...env, ...basis, ...extra });
  const writes = fake.requests.slice(sent).filter((r) => r.method !== 'GET');
  return { plan, applied, writes: writes.map((r) => `${r.method} ${r.path.replace('/api2/json/', '')}`) };
};
const byHand = (method: string, path: string, form?: Record<string, string>) =>
  call(fake.url, method, `/nodes/n2/network${path}`, form === undefined ? {} : { form });
const mtuByHand = () =>
  byHand('PUT', '/vmbr1', { type: 'bridge', bridge_ports: 'enp2s0', autostart: '1', mtu: '1400' });

test('an interface edited by hand after its plan is refused: nothing staged for it, nothing reloaded', async () => {
  const specs = [bridge('vmbr1', 'enp2s0'), bridge('vmbr2', 'enp3s0'), bridge('vmbr1', 'enp2s0', 'n3')];
  const { plan, applied, writes } = await planThenApply(specs, mtuByHand);
  expect(plan['vmbr1_n2.summary']).toBe('interface vmbr1 on n2 differs: comments is unset, want "lab"');
  expect(plan['.basis']).toMatch(/"vmbr1_n2":"interface read [0-9a-f]{16}"/);
  expect(applied.code).toBe(1);
  expect(applied.stderr).toContain(
    'vmbr1_n2: not applied: interface vmbr1 on n2 cannot be applied as planned: it was changed after the plan read ' +
      "it (a field of its row in the node's view: edited, staged or reverted by hand), so this apply would write " +
      "over that change, which the plan did not say; nothing was staged for it, the node's staged changes are left " +
      'as they are, and no network apply after it reloads them in this run: plan again',
  );
  // The interfaces its node stages after it wait for it (their order was checked with it staged first).
  expect(applied.stderr).toContain('vmbr2_n2: not applied: it comes after vmbr1_n2, which was not applied');
  expect(applied.stderr).toContain('net: not applied: it comes after vmbr1_n2, which was not applied');
  // Another node's interface stages; vmbr1 keeps the hand's mtu; no running file changes, no reload starts.
  expect(writes).toEqual(['PUT nodes/n3/network/vmbr1']);
  expect(fake.tasks()).toEqual([]);
  const { running, staged } = fake.interfacesFiles('n2');
  expect(running).not.toContain('mtu 1400');
  expect(staged).toMatch(/iface vmbr1 inet manual\n(\t.*\n)*\tmtu 1400\n/);
  expect(staged).not.toContain('#lab');
  expect(fake.interfacesFiles('n3').staged).toContain('#lab');
});

test('an interface deleted by hand between plan and apply is not created again', async () => {
  const { applied, writes } = await planThenApply([bridge('vmbr1', 'enp2s0')], () => byHand('DELETE', '/vmbr1'));
  expect(applied.stderr).toContain(
    'interface vmbr1 on n2 cannot be applied as planned: it was deleted (or its name taken by an interface of ' +
      'another type) after the plan read it, so this apply would create it, which the plan did not say',
  );
  expect(writes).toEqual([]);
});

test('an interface the plan read absent, created by hand before the apply, is not written over', async () => {
  const made = () => byHand('POST', '', { iface: 'vmbr3', type: 'bridge', autostart: '1', comments: 'theirs' });
  const { plan, applied, writes } = await planThenApply([bridge('vmbr3', 'enp4s0')], made);
  expect(plan['vmbr3_n2.summary']).toBe('interface vmbr3 on n2 is absent');
  expect(applied.stderr).toContain(
    'interface vmbr3 on n2 cannot be applied as planned: it was created after the plan read it absent',
  );
  expect(writes).toEqual([]);
  expect(fake.interfacesFiles('n2').staged).toContain('#theirs');
});

test('what stays as the plan read it refuses nothing: the interface stages and the node reloads', async () => {
  const { applied, writes } = await planThenApply([bridge('vmbr1', 'enp2s0')], async () => undefined);
  expect(applied.code).toBe(0);
  expect(writes).toEqual(['PUT nodes/n2/network/vmbr1', 'PUT nodes/n2/network']);
  expect(fake.interfacesFiles('n2').running).toContain('#lab');
  expect(fake.tasks()).toHaveLength(1);
});

test("an apply without a plan's reading (an earlier version made its apply resource) stages as before", async () => {
  const { applied, writes } = await planThenApply([bridge('vmbr1', 'enp2s0')], mtuByHand, { HOMELAB_BASIS: '' });
  expect(applied.code).toBe(0);
  // As before: its PUT clears the hand's mtu (delete=mtu), which the plan never named.
  expect(writes).toEqual(['PUT nodes/n2/network/vmbr1', 'PUT nodes/n2/network']);
  expect(fake.interfacesFiles('n2').running).not.toContain('mtu 1400');
});
