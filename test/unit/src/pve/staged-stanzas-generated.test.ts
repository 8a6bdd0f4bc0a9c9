/**
 * stagedStanzas against many staged files the writer makes (the fake's), from a seeded generator:
 * bridges and VLANs of varied length, then one interface changed where a hunk may show no header,
 * and sometimes a second one changed as by someone else. Every diff must name exactly those.
 */
import { NetworkStore } from '../../../../src/simulator/pve/network-store';
import { stagedStanzas } from '../../../../src/pve/staged-stanzas';

type Params = Record<string, string | number>;

/** A linear congruential generator: the same seed, the same node. */
const generator = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};

/**
 * A settled node with 1 to 4 bridges, each maybe with a VLAN, and `tail` after its last stanza (PVE
 * keeps a `source` line there); returns the interfaces made.
 */
const settledNode = (random: () => number, tail: string) => {
  const store = new NetworkStore(
    () => 0,
    () => 1,
  );
  store.setNode('n2', { physical: ['eno1', 'enp2s0', 'enp3s0'] });
  const made: string[] = [];
  for (let i = 1; i <= 1 + Math.floor(random() * 4); i++) {
    const bridge: Params = {
      iface: `vmbr${i}`,
      type: 'bridge',
      autostart: 1,
      ...(i === 1 ? { bridge_ports: 'enp2s0' } : {}),
    };
    if (random() < 0.5) bridge.cidr = `10.${i}.0.2/24`;
    if (random() < 0.5) bridge.comments = `bridge ${i}`;
    if (random() < 0.4) Object.assign(bridge, { bridge_vlan_aware: 1, bridge_vids: '2-100' });
    if (random() < 0.5) bridge.mtu = 1400;
    store.create('n2', bridge);
    made.push(`vmbr${i}`);
    if (random() < 0.5) continue;
    store.create('n2', {
      iface: `vmbr${i}.${10 + i}`,
      type: 'vlan',
      autostart: 1,
      ...(random() < 0.5 ? { cidr: `10.9${i}.0.2/24` } : {}),
    });
    made.push(`vmbr${i}.${10 + i}`);
  }
  store.promote('n2');
  store.setNode('n2', { running: `${store.filesOf('n2').running}${tail}` });
  return { store, made };
};

/** The PUT that keeps an interface as it is, plus `change`. */
const update = (store: NetworkStore, iface: string, change: Params) => {
  const row = store.read('n2').config.ifaces[iface]!;
  const kept = ['bridge_ports', 'bridge_vlan_aware', 'bridge_vids', 'comments', 'mtu', 'cidr'].filter(
    (key) => row[key] !== undefined && row[key] !== '',
  );
  store.update('n2', iface, {
    type: String(row.type),
    ...Object.fromEntries(kept.map((k) => [k, String(row[k])])),
    ...change,
  });
};

// Issue 27 item 6: seeds past 60 keep a source line after the last stanza, the hunk's only boundary.
const SOURCE = 'source /etc/network/interfaces.d/*\n';
test.each(Array.from({ length: 120 }, (_, index) => index + 1))(
  'generated node %i: exactly the changed interfaces',
  (seed) => {
    const random = generator(seed);
    const { store, made } = settledNode(random, seed > 60 ? SOURCE : '');
    const target = made[Math.floor(random() * made.length)]!;
    const kind = random();
    const changed = [target];
    if (kind < 0.3) update(store, target, { comments: 'changed' });
    else if (kind < 0.6) update(store, target, { mtu: target.includes('.') ? 1300 : 1350 });
    else if (kind < 0.8 && !target.includes('.')) update(store, target, { bridge_vlan_aware: 1, bridge_vids: '5-50' });
    else {
      store.create('n2', { iface: 'vmbr9', type: 'bridge', autostart: 1 });
      changed[0] = 'vmbr9';
    }
    const other = made[Math.floor(random() * made.length)]!;
    if (!changed.includes(other) && random() < 0.7) {
      update(store, other, { comments: 'someone else' });
      changed.push(other);
    }
    const { config, changes } = store.read('n2');
    const rows = Object.entries(config.ifaces)
      .map(([iface, d]) => ({ ...d, iface }))
      .filter((row) => row.iface !== 'lo');
    expect(stagedStanzas(changes ?? '', rows)).toMatchObject({
      interfaces: changed.sort(),
      outside: false,
      unplaced: false,
    });
  },
);
