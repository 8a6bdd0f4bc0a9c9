/**
 * Changes someone else staged on a node (an interface the stack does not declare there) against the
 * fake PVE: the plan names them, the apply refuses to make them live unless reloadForeignChanges says
 * it may, and the stack's own staging (a bond marking its slaves `auto`) is never taken for them
 * (issue 16 item 6).
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
const OURS = { type: 'bridge', bridge_ports: 'enp2s0', autostart: '1', comments: 'lab storage' };

const NICS = ['eno1', 'enp2s0', 'enp3s0', 'enp4s0'];

let fake: FakePve;
let clock: VirtualClock;
beforeEach(async () => {
  clock = new VirtualClock();
  fake = await startFakePve({ nodes: ['n1', 'n2', 'n3'], now: clock.now, network: { n3: { physical: NICS } } });
});
afterEach(() => fake.stop());

const target = () => ({ endpoints: [fake.url], tokenEnv: 'PROXMOX_VE_API_TOKEN', insecure: true });
/** The stack declares vmbr1 on n2 and n3, and bond0 on n3. */
const spec = (extra: object = {}) => ({
  nodes: ['n2', 'n3'],
  timeoutSeconds: 30,
  interfaces: { n2: ['vmbr1'], n3: ['bond0', 'vmbr1'] },
  reloadForeignChanges: false,
  ...extra,
});
/** A create through PVE's API, as this stack's interface or a person in the web UI would send it. */
const create = async (node: string, form: Record<string, string>) => {
  const res = await call(fake.url, 'POST', `/nodes/${node}/network`, { form });
  expect(res.status).toBe(200);
};
const reloads = () => fake.requests.filter((r) => r.method === 'PUT').map((r) => r.path.replace('/api2/json/', ''));
const apply = (applied = spec()) => invoke(pveDomain(), 'network-apply', 'apply', target(), applied, env, clock);

test("the plan names the interfaces someone else staged, beside the stack's own lines", async () => {
  await create('n2', { iface: 'vmbr1', ...OURS });
  await create('n3', { iface: 'vmbr1', ...OURS });
  await create('n3', { iface: 'vmbr9', type: 'bridge', autostart: '1' });
  const batch = await invokeBatch(pveDomain(), target(), { net: { kind: 'network-apply', spec: spec() } }, env);
  expect(batch.result?.['net.summary']).toBe(
    'n2: 7 staged lines; n3: 13 staged lines, 1 by someone else: vmbr9; ' +
      "the apply refuses to reload while someone else's changes are staged (reloadForeignChanges: false)",
  );
});

test('the apply refuses while a node holds them, naming them and how to proceed, and reloads no node', async () => {
  await create('n2', { iface: 'vmbr1', ...OURS });
  await create('n3', { iface: 'vmbr9', type: 'bridge', autostart: '1' });
  const run = await apply();
  expect(run.code).toBe(1);
  expect(run.stderr.split('\n').pop()).toBe(
    'network-apply apply: Network apply refused: changes staged by someone else: n3 holds staged changes to ' +
      'vmbr9, which this stack does not declare, and a reload makes every staged change on a node live; nothing ' +
      'was reloaded. Look at them (web UI: the node, System, Network), then apply or revert them there, or ' +
      'declare them in this stack, or set reloadForeignChanges: true on the ProxmoxNetworkApply to reload them ' +
      "with this stack's changes; then apply again",
  );
  expect(reloads()).toEqual([]);
  expect(fake.interfacesFiles('n3').running).not.toContain('vmbr9');
});

test('with reloadForeignChanges the apply reloads them too, and says whose they are', async () => {
  await create('n3', { iface: 'vmbr9', type: 'bridge', autostart: '1' });
  const run = await apply(spec({ reloadForeignChanges: true }));
  expect(run.code).toBe(0);
  expect(run.stderr).toContain('n3: 6 staged lines, 1 by someone else: vmbr9\n');
  expect(reloads()).toEqual(['nodes/n3/network']);
});

test("a declared bond's slaves, which PVE's writer marks auto, are the stack's own", async () => {
  await create('n3', { iface: 'bond0', type: 'bond', slaves: 'enp3s0 enp4s0', bond_mode: 'active-backup' });
  expect(fake.interfacesFiles('n3').staged).toContain('auto enp3s0\n');
  const run = await apply();
  expect([run.code, reloads()]).toEqual([0, ['nodes/n3/network']]);
});

// Regression: a declared bond's slaves counted as the stack's whatever was staged on them, so an mtu and an address
// staged by hand on one were reloaded as the stack's under reloadForeignChanges false, and the plan named no one.
test("a change staged by hand on a declared bond's slave is someone else's: named, and not reloaded", async () => {
  await create('n3', { iface: 'bond0', type: 'bond', slaves: 'enp3s0 enp4s0', bond_mode: 'active-backup' });
  expect(await apply(spec({ interfaces: { n2: [], n3: ['bond0'] } }))).toMatchObject({ code: 0 });
  const put = await call(fake.url, 'PUT', '/nodes/n3/network/enp3s0', {
    form: { type: 'eth', mtu: '1400', cidr: '192.0.2.9/24' },
  });
  expect(put.status).toBe(200);
  const onlyBond = spec({ nodes: ['n3'], interfaces: { n3: ['bond0'] } });
  const batch = await invokeBatch(pveDomain(), target(), { net: { kind: 'network-apply', spec: onlyBond } }, env);
  expect(batch.result?.['net.summary']).toMatch(/^n3: \d+ staged lines, 1 by someone else: enp3s0; the apply refuses /);
  const before = reloads().length;
  expect(await apply(onlyBond)).toMatchObject({ code: 1, stderr: expect.stringContaining('staged changes to enp3s0') });
  expect(reloads().slice(before)).toEqual([]);
  expect(fake.interfacesFiles('n3').running).not.toContain('192.0.2.9');
});

test('a change staged on a later node while an earlier one reloads stops the chain there', async () => {
  await create('n2', { iface: 'vmbr1', ...OURS });
  fake.beforeNext('PUT', /\/nodes\/n2\/network$/, () => {
    const { running } = fake.interfacesFiles('n3');
    fake.setInterfacesFiles('n3', { staged: `${running}source /etc/network/interfaces.d/*\n` });
  });
  const run = await apply();
  expect(run.code).toBe(1);
  expect(run.stderr.split('\n').pop()).toMatch(
    /n3 holds staged changes to lines outside any interface, .*; nothing was reloaded on n3\. Look at them/,
  );
  expect(reloads()).toEqual(['nodes/n2/network']);
});

test('a spec written by hand without interfaces takes every staged change for someone else', async () => {
  await create('n2', { iface: 'vmbr1', ...OURS });
  const run = await apply({ nodes: ['n2'], timeoutSeconds: 30 } as never);
  expect(run.stderr).toMatch(/n2 holds staged changes to vmbr1, which this stack does not declare/);
  expect(reloads()).toEqual([]);
});

// Issue 27 item 6: refused before as changes staged by someone else.
test("the stack's own edit to a node's last interface, above the source line after it, is its own", async () => {
  await create('n2', { iface: 'vmbr1', ...OURS, mtu: '1400' });
  const { staged } = fake.interfacesFiles('n2');
  fake.setInterfacesFiles('n2', { running: `${staged!}source /etc/network/interfaces.d/*\n` });
  const res = await call(fake.url, 'PUT', '/nodes/n2/network/vmbr1', {
    form: { type: 'bridge', bridge_ports: 'enp2s0', autostart: '1', mtu: '1400', comments: 'lab storage, 10G' },
  });
  expect(res.status).toBe(200);
  expect(fake.interfacesFiles('n2').staged).toMatch(/#lab storage, 10G\n\nsource \/etc\/network\/interfaces\.d\/\*\n$/);
  const run = await apply(spec({ nodes: ['n2'] }));
  expect([run.code, reloads()]).toEqual([0, ['nodes/n2/network/vmbr1', 'nodes/n2/network']]);
  expect(fake.interfacesFiles('n2').running).toContain('#lab storage, 10G\n');
});

// Issue 27: the removals come from the record, which anyone can edit. An entry naming an interface the
// stack never created put it in the apply's removals, and the apply reloaded the deletion someone else staged.
describe('interfaces removed from the stack', () => {
  let runtime: string;
  beforeEach(() => {
    runtime = mkdtempSync(join(tmpdir(), 'homelab-traces-'));
  });
  afterEach(() => rmSync(runtime, { recursive: true, force: true }));
  /** A hook's environment in stack `lab`, whose notes live under `runtime`. */
  const hookEnv = () => ({ ...env, HOMELAB_STACK: 'lab', XDG_RUNTIME_DIR: runtime });
  const removing = spec({ nodes: ['n3'], interfaces: {}, removing: { n3: ['vmbr9'] } });
  const stageDeletion = async () => {
    await create('n3', { iface: 'vmbr9', type: 'bridge', autostart: '1' });
    expect(
      await invoke(pveDomain(), 'network-apply', 'apply', target(), spec({ reloadForeignChanges: true }), env, clock),
    ).toMatchObject({ code: 0 });
  };

  test('a deletion someone else staged is refused, naming it, though a record entry lists it', async () => {
    await stageDeletion();
    expect((await call(fake.url, 'DELETE', '/nodes/n3/network/vmbr9')).status).toBe(200);
    const before = reloads().length;
    const run = await invoke(pveDomain(), 'network-apply', 'apply', target(), removing, hookEnv(), clock);
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n').pop()).toMatch(/n3 holds staged changes to vmbr9, which this stack does not declare/);
    expect(reloads().slice(before)).toEqual([]);
    expect(fake.interfacesFiles('n3').running).toContain('vmbr9');
  });

  test('one still on its node that no destroy of the stack staged is named, and left', async () => {
    await stageDeletion();
    const before = reloads().length;
    const run = await invoke(pveDomain(), 'network-apply', 'apply', target(), removing, hookEnv(), clock);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      'n3: vmbr9 listed as removed, but no destroy of this stack staged a deletion: left in place',
    );
    expect(reloads().slice(before)).toEqual([]);
    expect(fake.interfacesFiles('n3').running).toContain('vmbr9');
  });

  // An audit (2026-12-05): the entry exempted someone's staged edit of the live interface, and the apply
  // reloaded it (mtu 9000 live) without reloadForeignChanges, while vmbr9 stayed.
  test('a change staged on a listed interface still there is refused, naming it, and nothing reloads', async () => {
    await stageDeletion();
    const edit = { type: 'bridge', autostart: '1', mtu: '9000' };
    expect((await call(fake.url, 'PUT', '/nodes/n3/network/vmbr9', { form: edit })).status).toBe(200);
    const before = reloads().length;
    const plan = await invokeBatch(
      pveDomain(),
      target(),
      { net: { kind: 'network-apply', spec: removing } },
      hookEnv(),
    );
    expect(plan.result?.['net.summary']).toBe('n3: 1 staged line, vmbr9 to be deleted if this plan destroys it');
    const run = await invoke(pveDomain(), 'network-apply', 'apply', target(), removing, hookEnv(), clock);
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n').pop()).toMatch(/n3 holds staged changes to vmbr9, which this stack does not declare/);
    expect(reloads().slice(before)).toEqual([]);
    expect(fake.interfacesFiles('n3').running).not.toContain('mtu 9000');
  });

  test("the deletion this stack's destroy staged is its own: the apply reloads it, and forgets the note", async () => {
    await stageDeletion();
    const identity = { node: 'n3', iface: 'vmbr9', type: 'bridge' };
    const destroyed = await invoke(pveDomain(), 'network-interface', 'destroy', target(), identity, hookEnv(), clock);
    expect(destroyed).toMatchObject({ code: 0, stderr: 'interface vmbr9 on n3: staging its removal' });
    const before = reloads().length;
    const run = await invoke(pveDomain(), 'network-apply', 'apply', target(), removing, hookEnv(), clock);
    expect([run.code, reloads().slice(before)]).toEqual([0, ['nodes/n3/network']]);
    expect(fake.interfacesFiles('n3').running).not.toContain('vmbr9');
    // Someone staging the same deletion again after that reload is someone else again.
    await stageDeletion();
    expect((await call(fake.url, 'DELETE', '/nodes/n3/network/vmbr9')).status).toBe(200);
    const again = await invoke(pveDomain(), 'network-apply', 'apply', target(), removing, hookEnv(), clock);
    expect(again.code).toBe(1);
  });
});
