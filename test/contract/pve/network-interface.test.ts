/**
 * The network-interface handler against the fake PVE (pve-api.md §A2) over the CLI contract: one
 * list per node for a whole batch, staging by POST/PUT (with `delete=`) and DELETE, read-back,
 * and never a reload: the running file is untouched until a network apply.
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

let fake: FakePve;
beforeEach(async () => {
  fake = await startFakePve({ nodes: ['n1', 'n2', 'n3'] });
});
afterEach(() => fake.stop());

const target = () => ({ endpoints: [fake.url], tokenEnv: 'PROXMOX_VE_API_TOKEN', insecure: true });
const run = (verb: 'read' | 'apply' | 'destroy', object: object) =>
  invoke(pveDomain(), 'network-interface', verb, target(), object, env);
const writes = () =>
  fake.requests
    .filter((r) => r.method !== 'GET')
    .map((r) => [`${r.method} ${r.path.replace('/api2/json/', '')}`, r.body]);

describe('reading', () => {
  test('a batch lists each declared node once, however many interfaces it declares there', async () => {
    const objects = {
      a: { kind: 'network-interface', spec: bridge() },
      b: { kind: 'network-interface', spec: { ...VMBR1, iface: 'vmbr0', options: {} } },
      c: { kind: 'network-interface', spec: { ...bridge(), node: 'n3' } },
    };
    const batch = await invokeBatch(pveDomain(), target(), objects, env);
    // vmbr1 is absent on both nodes: one question whether the token may see it (ACLs are cluster-wide).
    expect(fake.requests.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
      'GET /api2/json/access/permissions',
      'GET /api2/json/nodes/n2/network',
      'GET /api2/json/nodes/n3/network',
    ]);
    expect(batch.result?.['a.summary']).toBe('interface vmbr1 on n2 is absent');
    expect(batch.result?.['b.summary']).toBe(
      'interface vmbr0 on n2 differs: autostart is true, want false; cidr is "10.0.0.2/24", want unset; ' +
        'gateway is "10.0.0.254", want unset; bridge_ports is ["eno1"], want unset',
    );
  });

  // Issue 16 item 7: a port n2 does not have passed the plan, then PVE refused the staging with a 500.
  // Issue 27 item 6: naming it in the plan was not enough, the plan passed and the apply could not: it fails.
  test('a bridge port the node lacks fails the plan naming each, unless the batch declares it there', async () => {
    const bond = { node: 'n2', iface: 'bond0', type: 'bond', options: { slaves: ['enp2s0'] } };
    const objects = {
      a: { kind: 'network-interface', spec: bridge({ bridge_ports: ['enp9s0'] }) },
      b: { kind: 'network-interface', spec: { ...VMBR1, iface: 'vmbr2', options: { bridge_ports: ['bond0'] } } },
      c: { kind: 'network-interface', spec: bond },
      d: { kind: 'network-interface', spec: { ...bridge({ bridge_ports: ['bond0'] }), node: 'n3' } },
    };
    const batch = await invokeBatch(pveDomain(), target(), objects, env);
    expect(batch.code).toBe(1);
    expect(batch.result).toBeUndefined();
    expect(batch.stderr.split('\n').pop()).toBe(
      'batch read: Network interfaces name interfaces their nodes lack: interface vmbr1 on n2: bridge port ' +
        'enp9s0 is not on n2; interface vmbr1 on n3: bridge port bond0 is not on n3; PVE refuses to stage an ' +
        'interface that names one, so nothing can be applied. Create it on the node, or declare it on that ' +
        'node in this stack, or name another; then plan again',
    );
    // With the missing ones gone, the bridge on the bond the batch declares on n2 reads as absent, no more.
    const fine = await invokeBatch(pveDomain(), target(), { b: objects.b, c: objects.c }, env);
    expect(fine.result?.['b.summary']).toBe('interface vmbr2 on n2 is absent');
    // Issue 27 item 6: the apply still POSTed it and PVE answered 500; now nothing is sent.
    const applied = await run('apply', bridge({ bridge_ports: ['enp9s0'] }));
    expect(applied.code).toBe(1);
    expect(applied.stderr.split('\n').pop()).toBe(
      'network-interface apply: interface vmbr1 on n2 cannot be staged: bridge port enp9s0 is not on n2, and ' +
        'PVE refuses an interface that names one; nothing was staged. Create it on the node, or declare it on ' +
        'that node in this stack, or name another; then apply again',
    );
    expect(writes()).toEqual([]);
  });

  // [PC] f665029 src/PVE/Network/Interfaces.pm:1004-1028: PVE's writer takes a bridge port <device>.<id> without
  // a stanza as a VLAN of its device and writes no stanza for it, so GET never lists it. The plan refused such a
  // bridge as naming a port the node lacks (and would never have read it in sync): only the device must be there.
  test('a bridge port <device>.<id> needs only its device on the node, staged and read in sync', async () => {
    const vlanPort = bridge({ bridge_ports: ['enp2s0.20'] });
    const before = await invokeBatch(pveDomain(), target(), { a: { kind: 'network-interface', spec: vlanPort } }, env);
    expect(before.result?.['a.summary']).toBe('interface vmbr1 on n2 is absent');
    expect((await run('apply', vlanPort)).code).toBe(0);
    expect(fake.interfacesFiles('n2').staged).toContain('bridge-ports enp2s0.20');
    expect((await run('read', vlanPort)).result).toMatchObject({ in_sync: 'true' });
    // Its device missing, the plan fails naming the device, and the apply sends nothing.
    fake.requests.length = 0;
    const lacking = { ...bridge({ bridge_ports: ['enp9s0.20'] }), iface: 'vmbr2' };
    const batch = await invokeBatch(pveDomain(), target(), { a: { kind: 'network-interface', spec: lacking } }, env);
    expect(batch.stderr.split('\n').pop()).toContain(
      'their nodes lack: interface vmbr2 on n2: device enp9s0 of bridge port enp9s0.20 is not on n2;',
    );
    expect((await run('apply', lacking)).code).toBe(1);
    expect(writes()).toEqual([]);
  });

  test('lines the table does not manage (a wpa-psk) never reach a reading', async () => {
    const { running } = fake.interfacesFiles('n2');
    fake.setInterfacesFiles('n2', { running: `${running}iface wlp91s0 inet manual\n\twpa-psk hunter22\n` });
    const read = await run('read', bridge());
    expect(JSON.stringify(read)).not.toMatch(/hunter22|wpa/);
  });
});

describe('staging', () => {
  test('an absent interface is created in interfaces.new, reads back in sync, and nothing is reloaded', async () => {
    const applied = await run('apply', bridge());
    expect(applied).toEqual({ code: 0, stderr: 'interface vmbr1 on n2: staging a new bridge' });
    expect(writes()).toEqual([
      [
        'POST nodes/n2/network',
        { iface: 'vmbr1', type: 'bridge', cidr: '10.10.0.2/24', bridge_ports: 'enp2s0', autostart: '1' },
      ],
    ]);
    expect(fake.interfacesFiles('n2').staged).toContain('iface vmbr1 inet static');
    expect(fake.interfacesFiles('n2').running).not.toContain('vmbr1');
    expect(fake.tasks()).toEqual([]);
    expect((await run('read', bridge())).result).toMatchObject({ in_sync: 'true' });
  });

  test('a changed field is updated and a removed optional field is cleared with delete=', async () => {
    expect((await run('apply', bridge({ mtu: 1400, comments: 'uplink' }))).code).toBe(0);
    fake.requests.length = 0;
    const applied = await run('apply', bridge({ cidr: '10.10.0.3/24' }));
    expect(applied.stderr).toBe('interface vmbr1 on n2: staging comments, mtu, cidr');
    expect(writes()).toEqual([
      [
        'PUT nodes/n2/network/vmbr1',
        { type: 'bridge', cidr: '10.10.0.3/24', bridge_ports: 'enp2s0', autostart: '1', delete: 'comments,mtu' },
      ],
    ]);
    expect((await run('read', bridge({ cidr: '10.10.0.3/24' }))).result).toMatchObject({ in_sync: 'true' });
  });

  // PVE's writer drops a comment's trailing empty lines and its reader ends each line with \n (Interfaces.pm:215,
  // 777-779 in pve-common f665029): "uplink\n" was staged, read back "uplink", and failed "did not hold".
  test('a comment ending in a newline is refused before anything is staged', async () => {
    const applied = await run('apply', bridge({ comments: 'uplink\n' }));
    expect(applied.stderr).toMatch(/^network-interface apply: Bad input: spec\.options\.comments: must be a non-empty/);
    expect(writes()).toEqual([]);
  });

  test('an interface already as declared is left alone', async () => {
    await run('apply', bridge());
    fake.requests.length = 0;
    expect((await run('apply', bridge())).stderr).toBe('interface vmbr1 on n2: in sync, nothing to stage');
    expect(writes()).toEqual([]);
  });

  // Regression: the plan's line named the two types alone, under the check's "apply converges it".
  test('a name held by another type reads and fails saying the apply refuses it: PVE keeps a type', async () => {
    const declared = { node: 'n2', iface: 'eno1', type: 'bridge', options: {} };
    const said =
      "interface eno1 on n2 is a eth, not a bridge: PVE cannot change an interface's type, so the apply refuses it; " +
      'remove it or use another name';
    expect((await run('read', declared)).result).toMatchObject({ in_sync: 'false', summary: said });
    const applied = await run('apply', declared);
    expect(applied.code).toBe(1);
    expect(applied.stderr).toBe(`network-interface apply: interface eno1 on n2 cannot be staged: ${said}`);
    expect(writes()).toEqual([]);
  });
});

describe('destroy', () => {
  test('stages a DELETE and reloads nothing; a second destroy finds it already absent', async () => {
    await run('apply', bridge());
    fake.requests.length = 0;
    expect((await run('destroy', VMBR1)).stderr).toBe('interface vmbr1 on n2: staging its removal');
    expect(writes()).toEqual([['DELETE nodes/n2/network/vmbr1', {}]]);
    expect(fake.tasks()).toEqual([]);
    expect((await run('destroy', VMBR1)).stderr).toBe('interface vmbr1 on n2: already absent');
  });

  test('an interface that is now of another type is left alone', async () => {
    const destroyed = await run('destroy', { node: 'n2', iface: 'eno1', type: 'bridge' });
    expect(destroyed.stderr).toBe('interface eno1 on n2: now a eth that this stack did not declare; left alone');
    expect(writes()).toEqual([]);
  });
});
