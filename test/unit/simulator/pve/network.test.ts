// The fake's node network against reference/pve-api.md §A2 and the PVE sources it cites: staging
// into interfaces.new, `changes` beside `data`, the writer's rules, revert, and the reload task.
import { startPveSimulator, type PveSimulator } from '../../../../src/simulator/pve/server';
import { call, type CallOptions } from '../../../fakes/pve/test-client';

const NET = '/nodes/n2/network';
const BRIDGE = { iface: 'vmbr1', type: 'bridge', cidr: '10.10.0.2/24', bridge_ports: 'enp2s0', autostart: '1' };

let fake: PveSimulator;
const api = (method: string, path: string, options?: CallOptions) => call(fake.url, method, path, options);
const rowOf = async (iface: string) => {
  const { body } = await api('GET', NET);
  return body.data.find((row: { iface: string }) => row.iface === iface);
};

beforeEach(async () => {
  fake = await startPveSimulator({ nodes: ['n1', 'n2', 'n3'] });
});
afterEach(() => fake.stop());

describe('reading a node network (GET nodes/{node}/network)', () => {
  test('lists the running interfaces without lo and without changes when nothing is staged', async () => {
    const { status, body } = await api('GET', NET);
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['data']);
    expect(body.data.map((row: { iface: string }) => row.iface)).toEqual(['eno1', 'enp2s0', 'vmbr0']);
  });

  // [PC] f665029 src/PVE/Network/Interfaces.pm:458-471 and 537-547 (_get_cidr): a dotted netmask counts its bits,
  // and the row's netmask becomes those bits; with no usable mask the address is a /32.
  test('derives cidr from a dotted netmask as PVE does, and answers the netmask as its bits', async () => {
    const { running } = fake.interfacesFiles('n2');
    const stanza = 'iface vmbr1 inet static\n\taddress 10.10.0.2\n\tnetmask 255.255.255.0\n\tbridge-ports none\n';
    fake.setInterfacesFiles('n2', { running: `${running}\n${stanza}` });
    expect(await rowOf('vmbr1')).toMatchObject({ cidr: '10.10.0.2/24', address: '10.10.0.2', netmask: '24' });
  });

  test('answers values as PVE does: flags as 1, file values as text, cidr derived', async () => {
    expect(await rowOf('vmbr0')).toMatchObject({
      type: 'bridge',
      autostart: 1,
      active: 1,
      bridge_ports: 'eno1',
      bridge_stp: 'off',
      bridge_fd: '0',
      cidr: '10.0.0.2/24',
      address: '10.0.0.2',
      netmask: '24',
      gateway: '10.0.0.254',
      method: 'static',
    });
    expect(await rowOf('eno1')).toMatchObject({ type: 'eth', exists: 1, method: 'manual', families: ['inet'] });
  });
});

describe('staging', () => {
  test('a create on the collection stages: GET shows the staged view and changes beside data', async () => {
    const created = await api('POST', NET, { form: { ...BRIDGE, mtu: '1500' } });
    expect(created.body).toEqual({ data: null });
    const { body } = await api('GET', NET);
    expect(Object.keys(body)).toEqual(['data', 'changes']);
    expect(body.changes).toMatch(/^--- \/etc\/network\/interfaces\t.*\n\+\+\+ \/etc\/network\/interfaces\.new\t/);
    expect(body.changes).toContain(
      '\n+auto vmbr1\n+iface vmbr1 inet static\n+\taddress 10.10.0.2/24\n+\tbridge-ports enp2s0\n',
    );
    expect(fake.interfacesFiles('n2').running).not.toContain('vmbr1');
    expect(await rowOf('vmbr1')).toMatchObject({ type: 'bridge', cidr: '10.10.0.2/24', mtu: '1500', autostart: 1 });
  });

  test('a POST on the interface path is not a method (create is on the collection)', async () => {
    const res = await api('POST', `${NET}/vmbr1`, { form: { type: 'bridge' } });
    expect([res.status, res.reason]).toEqual([501, `Method 'POST ${NET}/vmbr1' not implemented`]);
  });

  test('an update needs type, clears with delete=, and stages', async () => {
    await api('POST', NET, { form: { ...BRIDGE, mtu: '1500', comments: 'uplink' } });
    const untyped = await api('PUT', `${NET}/vmbr1`, { form: { mtu: '9000' } });
    expect(untyped.body.errors).toEqual({ type: 'property is missing and it is not optional' });
    await api('PUT', `${NET}/vmbr1`, { form: { type: 'bridge', cidr: '10.10.0.2/24', delete: 'mtu,comments' } });
    const row = await rowOf('vmbr1');
    expect([row.mtu, row.comments, row.cidr]).toEqual([undefined, undefined, '10.10.0.2/24']);
  });

  test('bridge_vlan_aware=0 still writes "bridge-vlan-aware yes": only delete= switches it off', async () => {
    await api('POST', NET, { form: { ...BRIDGE, bridge_vlan_aware: '0' } });
    expect(await rowOf('vmbr1')).toMatchObject({ bridge_vlan_aware: 1, bridge_vids: '2-4094' });
  });

  test('an update stores bridge_vids as sent, while a create normalises them', async () => {
    await api('POST', NET, { form: { ...BRIDGE, bridge_vlan_aware: '1', bridge_vids: '10,20' } });
    expect((await rowOf('vmbr1')).bridge_vids).toBe('10 20');
    await api('PUT', `${NET}/vmbr1`, { form: { type: 'bridge', bridge_vids: '30,40' } });
    expect((await rowOf('vmbr1')).bridge_vids).toBe('30,40');
  });

  test('a VLAN gets its device and id from its name', async () => {
    await api('POST', NET, { form: BRIDGE });
    await api('POST', NET, { form: { iface: 'vmbr1.20', type: 'vlan', cidr: '10.20.0.2/24' } });
    expect(await rowOf('vmbr1.20')).toMatchObject({ type: 'vlan', 'vlan-raw-device': 'vmbr1', 'vlan-id': '20' });
  });

  test.each<[string, Record<string, string>, number, unknown]>([
    ['an existing name', { iface: 'vmbr0', type: 'bridge' }, 400, { iface: 'interface already exists' }],
    [
      'a second default gateway',
      { ...BRIDGE, gateway: '10.10.0.1' },
      400,
      { gateway: "Default gateway already exists on interface 'vmbr0'." },
    ],
    [
      'a port another bridge uses',
      { ...BRIDGE, bridge_ports: 'eno1' },
      400,
      { bridge_ports: "eno1 is already used on interface 'vmbr0'." },
    ],
    [
      'a /7 cidr',
      { ...BRIDGE, cidr: '10.0.0.1/7' },
      400,
      { cidr: 'invalid format - value does not look like a valid IPv4 CIDR network\n' },
    ],
    [
      'VLAN id 1 in a list',
      { ...BRIDGE, bridge_vids: '1' },
      400,
      { bridge_vids: "invalid format - invalid VLAN tag '1'\n" },
    ],
    ['a form true', { ...BRIDGE, autostart: 'true' }, 400, { autostart: "type check ('boolean') failed - got 'true'" }],
    // [PM] 14a22df PVE/API2/Network.pm:573-592, 661, 782 with Net::IP 1.26's type table (Debian's libnet-ip-perl).
    ...(
      [
        ['a documentation', '2001:db8::2', 'DOCUMENTATION'],
        ['a 6to4', '2002:a00:1::2', '6TO4'],
        ['a multicast', 'ff02::2', 'MULTICAST'],
        ['an IPv4-mapped', '::ffff:10.0.0.2', 'IPV4MAP'],
      ] as const
    ).map(([what, address, type]): [string, Record<string, string>, number, unknown] => [
      `${what} IPv6 address`,
      { ...BRIDGE, cidr6: `${address}/${address.includes('.') ? 120 : 64}` },
      400,
      { address: `${address} with type '${type}', cannot be used as host IPv6 address.` },
    ]),
  ])("refuses %s with PVE's 400", async (_, form, status, errors) => {
    const res = await api('POST', NET, { form });
    expect([res.status, res.body.errors]).toEqual([status, errors]);
    expect(fake.interfacesFiles('n2').staged).toBeUndefined();
  });

  test.each<[string, Record<string, string>, string]>([
    [
      'a bridge MTU above its port',
      { ...BRIDGE, mtu: '9000' },
      "interface 'enp2s0' - mtu 1500 is lower than 'vmbr1' - mtu 9000\n",
    ],
    ['a missing port', { ...BRIDGE, bridge_ports: 'eno9' }, "bridge 'vmbr1' - unable to find bridge port 'eno9'\n"],
    [
      'a VLAN without its parent',
      { iface: 'vmbr7.20', type: 'vlan' },
      "vlan 'vmbr7.20' - unable to find parent 'vmbr7'\n",
    ],
  ])('refuses %s as the writer dies (500), staging nothing', async (_, form, message) => {
    const res = await api('POST', NET, { form });
    expect([res.status, res.body.message]).toEqual([500, message]);
    expect(fake.interfacesFiles('n2').staged).toBeUndefined();
  });

  // [PC] f665029 src/PVE/Network/Interfaces.pm:1004-1028 ("check bridgeport option"): a port named
  // <device>.<id> with no stanza of its own is taken as a VLAN in a copy of the interfaces (mtu from
  // its device), so the writer accepts it and writes no stanza for it: GET never lists it.
  test('a bridge port <device>.<id> without a stanza of its own is accepted and is not listed', async () => {
    const res = await api('POST', NET, { form: { ...BRIDGE, bridge_ports: 'enp2s0.20' } });
    expect([res.status, res.body]).toEqual([200, { data: null }]);
    expect(await rowOf('vmbr1')).toMatchObject({ type: 'bridge', bridge_ports: 'enp2s0.20' });
    expect(await rowOf('enp2s0.20')).toBeUndefined();
    expect(fake.interfacesFiles('n2').staged).not.toMatch(/iface enp2s0\.20/);
    // Its MTU is its device's (1500 when unset), so a bridge above it is refused as above a port.
    const above = await api('POST', NET, { form: { ...BRIDGE, iface: 'vmbr2', bridge_ports: 'eno1.30', mtu: '9000' } });
    expect([above.status, above.body.message]).toEqual([
      500,
      "interface 'eno1.30' - mtu 1500 is lower than 'vmbr2' - mtu 9000\n",
    ]);
  });

  test('a delete stages; a DELETE on the node reverts every staged change', async () => {
    await api('DELETE', `${NET}/vmbr0`);
    expect((await api('GET', NET)).body.changes).toContain('\n-iface vmbr0 inet static\n');
    expect((await api('DELETE', NET)).body).toEqual({ data: null });
    expect(Object.keys((await api('GET', NET)).body)).toEqual(['data']);
    expect(await rowOf('vmbr0')).toBeDefined();
  });

  test('a staged file differing only in whitespace gives no changes, yet GET shows the staged view', async () => {
    const { running } = fake.interfacesFiles('n2');
    fake.setInterfacesFiles('n2', { staged: running.replace('\tbridge-fd 0', '\tbridge-fd   0  ') });
    expect(Object.keys((await api('GET', NET)).body)).toEqual(['data']);
    fake.setInterfacesFiles('n2', { staged: running.replace('address 10.0.0.2/24', 'address 10.0.0.9/24') });
    const { body } = await api('GET', NET);
    expect(body.changes).toContain('-\taddress 10.0.0.2/24\n+\taddress 10.0.0.9/24\n');
    expect(body.data.find((row: { iface: string }) => row.iface === 'vmbr0').cidr).toBe('10.0.0.9/24');
  });

  test('lines PVE does not model (wpa-psk) stay in options and show in changes, as on a real node', async () => {
    const { running } = fake.interfacesFiles('n2');
    fake.setInterfacesFiles('n2', { staged: `${running}iface wlp91s0 inet manual\n\twpa-psk hunter22\n` });
    const { body } = await api('GET', NET);
    expect(body.changes).toContain('+\twpa-psk hunter22\n');
    expect(body.data.find((row: { iface: string }) => row.iface === 'wlp91s0')).toMatchObject({
      options: ['wpa-psk hunter22'],
    });
  });
});

describe('permissions on /nodes/{node}', () => {
  beforeEach(async () => {
    await fake.stop();
    fake = await startPveSimulator({
      nodes: ['n1', 'n2', 'n3'],
      tokens: {
        'root@pam!homelab': { secret: 's0', privileges: 'modify' },
        'ops@pve!n2': { secret: 's1', privileges: 'none', nodes: { n2: 'modify' } },
        'ro@pve!read': { secret: 's2', privileges: 'audit' },
      },
    });
  });

  test('a token with Sys.Modify on one node stages there and nowhere else', async () => {
    const auth = 'PVEAPIToken=ops@pve!n2=s1';
    expect((await api('POST', NET, { auth, form: BRIDGE })).status).toBe(200);
    const elsewhere = await api('POST', '/nodes/n3/network', { auth, form: BRIDGE });
    expect([elsewhere.status, elsewhere.reason]).toEqual([403, 'Permission check failed (/nodes/n3, Sys.Modify)']);
  });

  test('a token without rights on / does not see bridges in the list (SDN.Audit is needed)', async () => {
    const { body } = await api('GET', NET, { auth: 'PVEAPIToken=ops@pve!n2=s1' });
    expect(body.data.map((row: { iface: string }) => row.iface)).toEqual(['eno1', 'enp2s0']);
  });

  test.each([
    ['PUT', NET, 'Sys.Modify'],
    ['DELETE', NET, 'Sys.Modify'],
    ['DELETE', `${NET}/vmbr0`, 'Sys.Modify'],
  ])('an auditor is refused %s %s', async (method, path, privilege) => {
    const res = await api(method, path, { auth: 'PVEAPIToken=ro@pve!read=s2' });
    expect([res.status, res.reason]).toEqual([403, `Permission check failed (/nodes/n2, ${privilege})`]);
  });
});

describe('members', () => {
  test('an offline member shows online 0 and calls forwarded to it get a bare 595', async () => {
    fake.setNodeOnline('n3', false);
    const { body } = await api('GET', '/cluster/status');
    expect(body.data.map((row: { name: string; online?: number }) => [row.name, row.online])).toEqual([
      ['homelab', undefined],
      ['n1', 1],
      ['n2', 1],
      ['n3', 0],
    ]);
    const res = await api('GET', '/nodes/n3/network');
    expect([res.status, res.reason, res.text]).toEqual([595, 'No route to host', '']);
    fake.setNodeOnline('n3', true);
    expect((await api('GET', '/nodes/n3/network')).status).toBe(200);
  });

  test('a node that is not a member fails the host lookup, as pveproxy does', async () => {
    const res = await api('GET', '/nodes/n9/network');
    expect([res.status, res.body.message]).toEqual([
      500,
      "hostname lookup 'n9' failed - failed to get address info for: n9: Name or service not known\n",
    ]);
  });

  test('a standalone node answers for itself only', async () => {
    const solo = await startPveSimulator({ clusterName: null, nodes: ['pve'] });
    const own = await call(solo.url, 'GET', '/nodes/pve/network');
    const other = await call(solo.url, 'GET', '/nodes/n2/network');
    await solo.stop();
    expect([own.status, other.status]).toEqual([200, 500]);
  });
});
