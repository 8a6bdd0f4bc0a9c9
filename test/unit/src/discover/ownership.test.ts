// What discover must not adopt (issue 27): an object a cdktf-homelab stack's mark is on (two stacks would then
// fight over it), each PVE node's management interface, and a Repo whose declaration would change it on the
// first apply. Each is left out, named with why, and the summary says so.
import { sha256Hex } from '../../../../src/core/canonical';
import type { Discovered } from '../../../../src/discover/declaration';
import { parseListing } from '../../../../src/discover/host-listing';
import { kubeDeclarations, type LiveKube } from '../../../../src/discover/kube';
import { managementInterfaces, pveDeclarations } from '../../../../src/discover/pve';
import { discoveredStack } from '../../../../src/discover/stack';
import { hostCandidates, statusEntries, systemdDeclarations } from '../../../../src/discover/systemd';
import { diffRepo, type LiveRepo, repoOf, wantedSecretRef } from '../../../../src/kube/kube-repo';
import type { LiveUnit } from '../../../../src/linux/unit-control';

const file = (text: string) => Buffer.from(text).toString('base64');
const UNIT = '[Unit]\nDescription=x\n[Service]\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=multi-user.target\n';
const running: LiveUnit['status'] = {
  loadState: 'loaded',
  activeState: 'active',
  subState: 'running',
  unitFileState: 'enabled',
  needDaemonReload: false,
};

/** A host with a hand-made unit, one another stack made (its record), a template and instance, two drop-ins. */
const host = (records: Record<string, string>, unreadable: readonly string[] = []): Discovered => {
  const listing = parseListing(
    [
      ['hand.service', UNIT],
      ['theirs.service', UNIT],
      ['probe@.service', UNIT],
      ['hand.service.d/10-a.conf', '[Service]\nNice=1\n'],
      ['hand.service.d/20-b.conf', '[Service]\nNice=2\n'],
    ]
      .map(([path, text]) => `F ${file(path!)} ${file(text!)}`)
      .concat([`L ${file('multi-user.target.wants/probe@a.service')} ${file('/etc/systemd/system/probe@.service')}`])
      .join('\n'),
  );
  const found = hostCandidates(listing, () => true);
  const live = statusEntries(found).map((entry): LiveUnit => {
    const text = entry.file === undefined ? undefined : listing.files.get(entry.file.replace(/^.*system\//, ''));
    const status = entry.unit === 'probe@.service' ? { ...running, unitFileState: 'indirect' } : running;
    return {
      status: { ...status, activeState: entry.unit === 'probe@.service' ? 'inactive' : 'active' },
      fileSha256: text === undefined ? undefined : sha256Hex(text.toString('utf8')),
      restartOn: entry.record === undefined ? undefined : records[entry.record],
    };
  });
  return systemdDeclarations({ host: 'h' }, found, live, new Set(unreadable));
};

const declaredIds = (discovered: Discovered) => discovered.declarations.map((d) => `${d.construct} ${d.id}`);

describe('systemd objects a stack marked', () => {
  test('a unit, an instance and a drop-in carrying a stack mark are left out as managed already, named', () => {
    // Before the fix each was declared adopt: true (a record whose digest matched), and two stacks fought.
    const theirs = host({
      '/var/lib/cdktf-homelab/restart-on/theirs.service': sha256Hex('[]'),
      '/var/lib/cdktf-homelab/restart-on/probe@a.service': 'x',
      '/var/lib/cdktf-homelab/drop-ins/etc/systemd/system/hand.service.d/20-b.conf': 'cdktf-homelab',
    });
    expect(declaredIds(theirs)).toEqual([
      'SshHost host',
      'SystemdUnit hand',
      'SystemdUnit probe',
      'SystemdDropIn hand-10-a',
    ]);
    expect(theirs.skipped).toEqual([
      {
        what: 'theirs.service',
        why: 'its restartOn record /var/lib/cdktf-homelab/restart-on/theirs.service is there',
        group: 'managed',
      },
      {
        what: 'probe@a.service',
        why: 'its restartOn record /var/lib/cdktf-homelab/restart-on/probe@a.service is there',
        group: 'managed',
      },
      {
        what: '/etc/systemd/system/hand.service.d/20-b.conf',
        why: 'its mark /var/lib/cdktf-homelab/drop-ins/etc/systemd/system/hand.service.d/20-b.conf is there',
        group: 'managed',
      },
    ]);
  });

  test('a mark this login may not read leaves the object out: whose it is cannot be told', () => {
    const mark = '/var/lib/cdktf-homelab/drop-ins/etc/systemd/system/hand.service.d/10-a.conf';
    const read = host({}, [mark]);
    expect(declaredIds(read)).not.toContain('SystemdDropIn hand-10-a');
    expect(read.skipped).toContainEqual({
      what: '/etc/systemd/system/hand.service.d/10-a.conf',
      why: `its mark ${mark} is there but this login may not read it: whose it is cannot be told`,
    });
  });

  test('the status read asks for each drop-in mark, as the drop-in kind reads it', () => {
    const found = hostCandidates(parseListing(`F ${file('a.service.d/x.conf')} ${file('[Service]\n')}`), () => true);
    expect(statusEntries(found)).toEqual([
      {
        unit: 'a.service',
        file: '/etc/systemd/system/a.service.d/x.conf',
        record: '/var/lib/cdktf-homelab/drop-ins/etc/systemd/system/a.service.d/x.conf',
      },
    ]);
  });
});

const kube = (repos: readonly object[], secrets: readonly string[] = []): Discovered =>
  kubeDeclarations({
    cluster: {},
    clusterId: 'kube',
    version: 'v1alpha1',
    namespaces: [{ namespace: 'jr2', repos }],
    secrets: new Set(secrets),
  } satisfies LiveKube);
const repo = (name: string, spec: object, metadata: object = {}) => ({ metadata: { name, ...metadata }, spec });

describe('Repos', () => {
  test.each([
    ['the bound label', { labels: { 'core.jr2.dev/bound': 'true' } }, 'it carries the label core.jr2.dev/bound'],
    [
      'the identity annotation',
      { annotations: { 'core.jr2.dev/identity': 'x' } },
      'it carries the annotation core.jr2.dev/identity',
    ],
  ])('a Repo carrying %s is left out as managed already', (_, metadata, why) => {
    const found = kube([repo('docs', { url: 'https://git.example/me/docs' }, metadata)]);
    expect(found.declarations).toEqual([]);
    expect(found.skipped).toEqual([{ what: 'Repo jr2/docs', why, group: 'managed' }]);
  });

  test('the "no bound label or identity annotation yet" comment is only above Repos that carry neither', () => {
    const found = kube([
      repo('a', { url: 'https://git.example/me/a' }),
      repo('b', { url: 'https://git.example/me/b' }, { annotations: { 'core.jr2.dev/identity': 'b' } }),
    ]);
    expect(found.declarations.filter((d) => d.note?.includes('carries no bound label')).map((d) => d.id)).toEqual([
      'a',
    ]);
  });

  test('an https secretRef naming a missing Secret leaves the Repo out: the first apply would remove it', () => {
    const found = kube([repo('site', { url: 'https://git.example/me/site', secretRef: { name: 'clone-site' } })]);
    expect(found.declarations).toEqual([]);
    expect(found.skipped[0]?.why).toMatch(
      /^its secretRef names the Secret clone-site, which is not in jr2: .*remove it/,
    );
  });

  test('an https secretRef naming a Secret that exists is declared, and the kind states the same secretRef', () => {
    const live = repo('site', { url: 'https://git.example/me/site', secretRef: { name: 'clone-site' } });
    const found = kube([live], ['jr2/clone-site']);
    const props = found.declarations.find((d) => d.construct === 'KubeRepo')!.props;
    expect(props.credentials).toEqual([{ match: 'git.example/me/site', https: { secret: 'clone-site' } }]);
    const { spec } = repoOf(props as unknown as Parameters<typeof repoOf>[0]);
    const diff = diffRepo(
      spec,
      wantedSecretRef(spec, (secret) => secret === 'clone-site'),
      live as LiveRepo,
    );
    expect(Object.keys(diff).filter((field) => field.startsWith('spec'))).toEqual([]);
  });
});

const rows = [
  { iface: 'eno1', type: 'eth' },
  { iface: 'bond0', type: 'bond', slaves: 'eno1', bond_mode: 'balance-rr' },
  { iface: 'vmbr0', type: 'bridge', bridge_ports: 'bond0', cidr: '10.0.0.1/24', address: '10.0.0.1' },
  { iface: 'vmbr0.40', type: 'vlan', cidr: '10.40.0.1/24', 'vlan-id': 40, 'vlan-raw-device': 'vmbr0' },
  { iface: 'vmbr1', type: 'bridge', cidr6: 'fd00::0:1/64' },
];

describe('PVE management interfaces', () => {
  test('the bridge carrying the node address in cluster/status and the bond under it are left out, named', () => {
    const found = pveDeclarations({ cluster: {}, networks: [{ node: 'n1', address: '10.0.0.1', rows }] }, new Set());
    expect(declaredIds(found)).toEqual([
      'ProxmoxCluster pve',
      'ProxmoxNetworkInterface vmbr0.40-n1',
      'ProxmoxNetworkInterface vmbr1-n1',
    ]);
    expect(found.skipped).toEqual([
      { what: 'interface bond0 on n1', why: "under the node's management interface vmbr0", group: 'management' },
      {
        what: 'interface vmbr0 on n1',
        why: "it carries 10.0.0.1, n1's address in cluster/status",
        group: 'management',
      },
    ]);
  });

  test('--include-management declares them', () => {
    const networks = [{ node: 'n1', address: '10.0.0.1', rows }];
    const found = pveDeclarations({ cluster: {}, networks }, new Set(), { includeManagement: true });
    expect(declaredIds(found)).toContain('ProxmoxNetworkInterface vmbr0-n1');
    expect(found.skipped).toEqual([]);
  });

  test('an IPv6 address is compared in its canonical form', () => {
    expect([...managementInterfaces({ node: 'n1', address: 'FD00:0::1', rows }).keys()]).toEqual(['vmbr1']);
  });

  test('a node without an address in cluster/status is said in the summary, as is that PVE keeps no mark', () => {
    const found = pveDeclarations({ cluster: {}, networks: [{ node: 'n1', rows }] }, new Set());
    const { summary } = discoveredStack([found], { stack: 's', from: 'm', read: [] });
    expect(summary).toContain(
      'note: cluster/status gave no address for n1: its management interface was not told apart',
    );
    expect(summary.join('\n')).toMatch(/note: PVE keeps no mark of ownership .* remove them from this stack by hand/);
  });
});

test('the summary groups what is left out by why, each group under one heading', () => {
  const pve = pveDeclarations({ cluster: {}, networks: [{ node: 'n1', address: '10.0.0.1', rows }] }, new Set());
  const repos = kube([repo('docs', { url: 'https://x.example/d' }, { labels: { 'core.jr2.dev/bound': 'true' } })]);
  const { summary } = discoveredStack([pve, repos], { stack: 's', from: 'm', read: [] });
  expect(summary.slice(1, 7)).toEqual([
    'left out 1, managed by a cdktf-homelab stack already (its mark is on the target: a second stack adopting it ' +
      'would fight the first; declare it in the stack that owns it):',
    '  Repo jr2/docs: it carries the label core.jr2.dev/bound',
    "left out 2, each PVE node's management interface (it carries the node's address in cluster/status: a change " +
      'to it can cut the node off; --include-management declares it):',
    "  interface bond0 on n1: under the node's management interface vmbr0",
    "  interface vmbr0 on n1: it carries 10.0.0.1, n1's address in cluster/status",
    expect.stringMatching(/^note: PVE keeps no mark/),
  ]);
});
