/**
 * stagedStanzas over the diffs PVE's writer produces (made by the fake's writer and `diff -b -u`),
 * and over hand-written ones: which interfaces a staged change touches, never an option line.
 */
import { NetworkStore } from '../../../../src/simulator/pve/network-store';
import { stagedStanzas } from '../../../../src/pve/staged-stanzas';

const HEAD = '--- /etc/network/interfaces\t2026-09-13 10:00\n+++ /etc/network/interfaces.new\t2026-09-13 10:01\n';

/** A node of the fake with four NICs and the default running file (lo, the NICs, vmbr0 last). */
const node = () => {
  const store = new NetworkStore(
    () => 0,
    () => 1,
  );
  store.setNode('n2', { physical: ['eno1', 'enp2s0', 'enp3s0', 'enp4s0'] });
  return store;
};

/** What GET answers: the staged rows (lo left out, as PVE lists them) and `changes`. */
const listed = (store: NetworkStore, hide: readonly string[] = []) => {
  const { config, changes } = store.read('n2');
  const rows = Object.entries(config.ifaces)
    .filter(([name]) => name !== 'lo' && !hide.includes(name))
    .map(([iface, d]) => ({ ...d, iface }));
  return { changes: changes ?? '', rows };
};
const touched = (store: NetworkStore, hide: readonly string[] = []) => {
  const { changes, rows } = listed(store, hide);
  return stagedStanzas(changes, rows);
};
/** vmbr0 as the default file has it, with an MTU: the last line of the file's last stanza. */
const VMBR0_MTU = { type: 'bridge', cidr: '10.0.0.2/24', gateway: '10.0.0.254', bridge_ports: 'eno1', mtu: 1400 };
const only = (...interfaces: string[]) => ({ interfaces, outside: false, unplaced: false });
const stageByHand = (store: NetworkStore, extra: string) =>
  store.setNode('n2', { staged: `${store.filesOf('n2').running}${extra}` });

describe('interfaces staged through the API', () => {
  test('a new bridge touches only itself', () => {
    const store = node();
    store.create('n2', { iface: 'vmbr1', type: 'bridge', cidr: '10.10.0.2/24', bridge_ports: 'enp2s0', autostart: 1 });
    expect(touched(store)).toMatchObject(only('vmbr1'));
  });

  test('an option changed deep in the last stanza (no header within the context) is placed by its rows', () => {
    const store = node();
    store.update('n2', 'vmbr0', VMBR0_MTU);
    expect(listed(store).changes).not.toMatch(/^[ +-](auto|iface) /m);
    expect(touched(store)).toMatchObject(only('vmbr0'));
  });

  test('a comment added under a bridge followed by another stanza is that bridge', () => {
    const store = node();
    store.create('n2', { iface: 'vmbr1', type: 'bridge', bridge_ports: 'enp2s0', autostart: 1 });
    store.setNode('n2', { running: store.filesOf('n2').staged });
    store.update('n2', 'vmbr0', { type: 'bridge', comments: 'uplink' });
    expect(touched(store)).toMatchObject(only('vmbr0'));
  });

  test('a bond also touches its slaves: the writer marks each of them auto', () => {
    const store = node();
    store.create('n2', { iface: 'bond0', type: 'bond', slaves: 'enp3s0 enp4s0', bond_mode: 'active-backup' });
    expect(touched(store)).toEqual({ ...only('bond0', 'enp3s0', 'enp4s0'), beyondAuto: ['bond0'] });
  });

  // Regression: a declared bond's slaves counted as the stack's whatever was staged on them, so a hand's mtu and
  // address staged on one were reloaded as the stack's under reloadForeignChanges false (network-apply.ts).
  test("a slave's lines beyond its auto line are told apart from the bond's marking", () => {
    const store = node();
    store.create('n2', { iface: 'bond0', type: 'bond', slaves: 'enp3s0 enp4s0', bond_mode: 'active-backup' });
    store.setNode('n2', { running: store.filesOf('n2').staged });
    store.update('n2', 'enp3s0', { type: 'eth', mtu: 1400 });
    expect(touched(store)).toMatchObject({ interfaces: ['enp3s0'], beyondAuto: ['enp3s0'] });
  });

  test('a removed stanza is named by its removed lines', () => {
    const store = node();
    store.remove('n2', 'vmbr0');
    expect(touched(store)).toMatchObject(only('vmbr0'));
  });
});

describe('changes staged by hand', () => {
  test('a wifi stanza with a wpa-psk line names the interface and never the line', () => {
    const store = node();
    stageByHand(store, 'iface wlp91s0 inet manual\n\twpa-psk hunter22\n');
    const result = touched(store);
    expect(result).toMatchObject(only('wlp91s0'));
    expect(JSON.stringify(result)).not.toMatch(/wpa|hunter22/);
  });

  test('a source line is outside any interface', () => {
    const store = node();
    stageByHand(store, 'source /etc/network/interfaces.d/*\n');
    expect(touched(store)).toMatchObject({ interfaces: [], outside: true, unplaced: false });
  });

  test('a line whose stanza is not listed (a bridge the token cannot see) is unplaced, not guessed', () => {
    const store = node();
    store.update('n2', 'vmbr0', VMBR0_MTU);
    expect(touched(store, ['vmbr0'])).toMatchObject({ unplaced: true });
  });

  test('an auto line alone names its interface', () => {
    const store = node();
    const running = store.filesOf('n2').running;
    store.setNode('n2', {
      staged: running.replace('iface enp2s0 inet manual', 'auto enp2s0\niface enp2s0 inet manual'),
    });
    expect(touched(store)).toMatchObject(only('enp2s0'));
  });
});

/**
 * A node whose last stanza is vmbr1 (lab storage, MTU 1400), running with `tail` after it: PVE
 * keeps top-level lines in place, so the writer prints them after the last stanza (issue 27 item 6).
 */
const lastStanzaNode = (tail = 'source /etc/network/interfaces.d/*\n') => {
  const store = node();
  store.create('n2', { iface: 'vmbr1', type: 'bridge', bridge_ports: 'enp2s0', autostart: 1, ...VMBR1 });
  store.setNode('n2', { running: `${store.filesOf('n2').staged}${tail}` });
  return store;
};
const VMBR1 = { comments: 'lab storage', mtu: 1400 };
const relabel = (store: NetworkStore, comments: string) =>
  store.update('n2', 'vmbr1', { type: 'bridge', bridge_ports: 'enp2s0', ...VMBR1, comments });

describe('the last stanza, above the lines PVE prints after it', () => {
  test.each([
    ['a source line', 'source /etc/network/interfaces.d/*\n'],
    ['source and source-directory lines', 'source /etc/network/interfaces.d/*\nsource-directory /etc/net.d\n'],
  ])("the stack's comment edit far below the last iface line, above %s, is that stanza", (_, tail) => {
    const store = lastStanzaNode(tail);
    relabel(store, 'lab storage 2');
    const { changes } = listed(store);
    expect(store.filesOf('n2').staged!.endsWith(`#lab storage 2\n\n${tail}`)).toBe(true);
    expect(changes).not.toMatch(/^[ +-](auto|iface) /m);
    expect(touched(store)).toMatchObject(only('vmbr1'));
  });

  test('a change to a bridge the list hides, last above the source line, is unplaced, not the last listed', () => {
    const store = lastStanzaNode();
    relabel(store, 'lab storage 2');
    expect(touched(store, ['vmbr1'])).toMatchObject({ interfaces: [], unplaced: true });
  });

  test('a source line added after the last stanza is still outside any interface', () => {
    const store = lastStanzaNode();
    store.setNode('n2', { staged: `${store.filesOf('n2').running}source-directory /etc/net.d\n` });
    expect(touched(store)).toMatchObject({ interfaces: [], outside: true, unplaced: false });
  });
});

describe('hand-written diffs', () => {
  const rows = [
    { iface: 'eno1', priority: 3 },
    { iface: 'vmbr0', priority: 4, bridge_ports: 'eno1', bridge_stp: 'off', bridge_fd: '0' },
    { iface: 'vmbr1', priority: 5, bridge_ports: 'enp2s0', bridge_stp: 'off', bridge_fd: '0', mtu: '9000' },
  ];

  test.each<[string, string, ReturnType<typeof only> | Record<string, unknown>]>([
    ['no diff', '', only()],
    [
      'preamble comments before lo are not an interface',
      '@@ -1,2 +1,3 @@\n+# autogenerated\n auto lo\n iface lo inet loopback\n',
      only(),
    ],
    [
      'a line before the first header belongs to the stanza listed before it',
      '@@ -9,3 +9,3 @@\n-\tmtu 1500\n+\tmtu 9000\n \n auto vmbr1\n',
      only('vmbr0'),
    ],
    [
      'a hunk after one that named vmbr1 continues it',
      '@@ -9,2 +9,2 @@\n auto vmbr1\n iface vmbr1 inet manual\n@@ -20 +20 @@\n-\tmtu 1500\n+\tmtu 9000\n',
      only('vmbr1'),
    ],
    [
      'rows narrow the stanzas a headerless hunk can be in',
      '@@ -20,2 +20,2 @@\n \tbridge-ports enp2s0\n-\tmtu 1500\n+\tmtu 9000\n',
      only('vmbr1'),
    ],
    [
      'a header whose row is missing leaves the line before it unplaced',
      '@@ -9,2 +9,2 @@\n-\tmtu 1\n+\tmtu 2\n auto vmbr9\n',
      { interfaces: [], unplaced: true },
    ],
    [
      'a removed line starting with -- is a line, not a file header',
      '@@ -1,2 +1,1 @@\n iface eno1 inet manual\n---x\n',
      only('eno1'),
    ],
  ])('%s', (_, body, expected) => {
    expect(stagedStanzas(body === '' ? '' : `${HEAD}${body}`, rows)).toMatchObject(expected);
  });

  const vmbr0 = { iface: 'vmbr0', bridge_ports: 'eno1', mtu: '2' };
  const vmbr1 = { iface: 'vmbr1', bridge_ports: 'enp2s0', mtu: '9000' };
  const aboveSource = '@@ -9,5 +9,5 @@\n \tbridge-ports eno1\n-\tmtu 1\n+\tmtu 2\n \n source /etc/a\n';
  test.each<[string, readonly object[], Record<string, unknown>]>([
    [
      'a line above a top-level line between stanzas belongs to the listed stanza it fits that such a line follows',
      [rows[0]!, { ...vmbr0, priority: 4 }, { ...vmbr1, priority: 6 }],
      only('vmbr0'),
    ],
    [
      'a line above a top-level line is unplaced where two unlisted priorities may be a hidden stanza and that line',
      [rows[0]!, { ...vmbr0, priority: 4 }, { ...vmbr1, priority: 7 }],
      { interfaces: [], unplaced: true },
    ],
  ])('%s', (_, listedRows, expected) => {
    expect(stagedStanzas(`${HEAD}${aboveSource}`, listedRows)).toMatchObject(expected);
  });
});
