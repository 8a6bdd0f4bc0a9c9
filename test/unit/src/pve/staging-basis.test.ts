// Unit test of what a plan read of the nodes a network apply reloads (staging-basis.ts): a row changed, made or gone
// moves the node, what the same apply staged (its interfaces, its bond's slaves marked `auto`) does not, a node the
// plan could not read is refused, and no free line (`wpa-psk`, `pre-up`) reaches the basis, in text or in a digest.
import type { NodeStaging } from '../../../../src/pve/network-changes';
import { movedRows, parseStagingBasis, stagingBasis, stagingRefusal } from '../../../../src/pve/staging-basis';

const vmbr1 = { iface: 'vmbr1', type: 'bridge', method: 'manual', bridge_ports: 'enp2s0', autostart: 1, priority: 5 };
const enp4s0 = { iface: 'enp4s0', type: 'eth', method: 'manual', priority: 3 };
const staging = (rows: readonly object[]): NodeStaging =>
  ({ lines: 1, rows, slaves: new Map(), present: [] }) as unknown as NodeStaging;
const TOKEN = 'the token in PROXMOX_VE_API_TOKEN';
const planned = parseStagingBasis(stagingBasis(['n2'], () => staging([vmbr1, enp4s0]), TOKEN));
const none = { interfaces: new Set<string>(), slaves: new Set<string>() };

test.each([
  ['a reload made it active', { ...vmbr1, active: 1, exists: 1 }],
  ['another interface moved its place in the file', { ...vmbr1, priority: 9 }],
  ['its free lines changed (a wpa-psk)', { ...vmbr1, options: ['wpa-psk s3cret'], options6: ['pre-up x'] }],
])('a row read after %s reads as the plan read it', (_what, row) => {
  expect(movedRows(planned, 'n2', staging([row, enp4s0]), none, TOKEN)).toBeUndefined();
});

test.each([
  ['an mtu staged', [{ ...vmbr1, mtu: 1400 }, enp4s0], ['vmbr1']],
  ['its auto line dropped', [{ ...vmbr1, autostart: 0 }, enp4s0], ['vmbr1']],
  ['an interface made', [vmbr1, enp4s0, { iface: 'vmbr9', type: 'bridge' }], ['vmbr9']],
  ['an interface deleted', [enp4s0], ['vmbr1']],
])('a node with %s names the rows that moved', (_what, rows, moved) => {
  expect(movedRows(planned, 'n2', staging(rows), none, TOKEN)).toEqual(moved);
});

test("what the same apply staged moves nothing: its interfaces, and its bond's slaves marked auto", () => {
  const bond = { iface: 'bond0', type: 'bond', slaves: 'enp4s0' };
  const rows = [{ ...vmbr1, mtu: 9000 }, { ...enp4s0, autostart: 1 }, bond];
  const own = { interfaces: new Set(['vmbr1', 'bond0']), slaves: new Set(['enp4s0']) };
  expect(movedRows(planned, 'n2', staging(rows), own, TOKEN)).toBeUndefined();
  // A slave's other fields are not the writer's: an mtu staged on it by hand still moves the node.
  expect(movedRows(planned, 'n2', staging([...rows.slice(0, 1), { ...enp4s0, mtu: 1400 }, bond]), own, TOKEN)).toEqual([
    'enp4s0',
  ]);
});

test('a node the plan could not read, or did not list, is refused, and so is a basis that does not parse', () => {
  const unread = parseStagingBasis(stagingBasis(['n2'], () => undefined, TOKEN));
  expect(movedRows(unread, 'n2', staging([vmbr1]), none, TOKEN)).toBe('unread');
  expect(movedRows(planned, 'n3', staging([vmbr1]), none, TOKEN)).toBe('unread');
  expect(stagingRefusal(['n2', 'n3'], [['n3', 'unread']], 'nothing was reloaded').message).toContain(
    'on n3, what is staged could not be read by the plan',
  );
  expect(() => parseStagingBasis('{"n2":3}')).toThrow(/network apply basis/);
});

test('the basis holds no text of a row, only names and digests', () => {
  const basis = stagingBasis(['n2'], () => staging([{ ...vmbr1, options: ['wpa-psk s3cret'], comments: 'x' }]), TOKEN);
  expect(basis).toBe(
    `{"nodes":{"n2":{"vmbr1":"${/[0-9a-f]{16}/.exec(basis)?.[0] ?? 'none'} auto bridge"}},"token":"${TOKEN}"}`,
  );
  expect(basis).not.toMatch(/s3cret|wpa-psk/);
});

test('read with another token than the plan, a bridge listed on one side only moves nothing, other rows do', () => {
  const vmbr9 = { iface: 'vmbr9', type: 'bridge', method: 'manual' };
  const other = 'the token in PVE_WRITE';
  // The plan's token saw no bridge, the apply's sees them (or the other way round): neither was made or deleted.
  expect(movedRows(planned, 'n2', staging([vmbr1, enp4s0, vmbr9]), none, other)).toBeUndefined();
  expect(movedRows(planned, 'n2', staging([enp4s0]), none, other)).toBeUndefined();
  // A bridge both list is compared, and so is a row of another type listed on one side.
  expect(movedRows(planned, 'n2', staging([{ ...vmbr1, mtu: 1400 }, enp4s0]), none, other)).toEqual(['vmbr1']);
  expect(movedRows(planned, 'n2', staging([vmbr1]), none, other)).toEqual(['enp4s0']);
  // Read with the plan's own token, a bridge made after the plan moves the node.
  expect(movedRows(planned, 'n2', staging([vmbr1, enp4s0, vmbr9]), none, TOKEN)).toEqual(['vmbr9']);
});
