/**
 * Every refusal a kind decides flags its reading (`converges: false`), so the drift warning's footer never promises
 * convergence under it, and a reading the apply converges carries no flag. The flag replaced a list of words the
 * lines had to contain: a refusal worded another way escaped it (batch-converges.test.ts).
 */
import { systemClock } from '../../../../src/core/clock';
import type { Reading } from '../../../../src/core/kind';
import { foreignReading, otherStackReading } from '../../../../src/core/ownership';
import { refusedAbsent, type RepoSpec } from '../../../../src/kube/kube-repo';
import { readFetch, type RepoFetchSpec } from '../../../../src/kube/kube-repo-fetch';
import { applyReading } from '../../../../src/pve/network-apply';
import { interfaceReading } from '../../../../src/pve/network-interface-diff';
import type { NetworkInterfaceSpec } from '../../../../src/pve/network-interface';
import { repoKind } from '../../../../handlers/kube/kube-repo';

const inSync: Reading = { inSync: true, summary: 'in sync', diff: {} };
const bridge = { node: 'n2', iface: 'eno1', type: 'bridge', options: {} } as unknown as NetworkInterfaceSpec;
const fetchSpec = { namespace: 'lab', sandbox: 'box', key: 'r1' } as unknown as RepoFetchSpec;

const repo: RepoSpec = {
  namespace: 'lab',
  key: 'r1',
  version: 'v1alpha1',
  url: 'https://git.example/me/r1',
  identity: 'git.example/me/r1',
  credentials: [],
  refreshInterval: '5m',
};

/** The Repo kind's reading of `repo` over a cluster holding `live` under its name. */
const repoReading = (live: Record<string, unknown>): Reading =>
  repoKind.open((kind) =>
    kind.read(
      repo as never,
      {
        repos: new Map([['lab/v1alpha1', new Map([['r1', live]])]]),
        secrets: new Set(),
        cluster: 'cluster test',
      } as never,
      { env: {}, log: () => undefined, clock: systemClock },
    ),
  );

const stated = {
  metadata: { labels: { 'core.jr2.dev/bound': 'true' }, annotations: {} },
  spec: { url: repo.url, refreshInterval: '5m' },
};

describe('a refusal flags its reading', () => {
  test.each<[string, Reading]>([
    ['an object not created by this stack, not adopted', foreignReading(inSync, false, 'shelf a')],
    ['an object of another stack, not taken over', otherStackReading(inSync, 'one', 'two', false, 'shelf a')],
    ['a Repo its cluster cannot hold', refusedAbsent('the namespace gone does not exist', 'create it first')],
    ['a fetch ask whose Sandbox is absent', readFetch(fetchSpec, 'absent', 'cluster test')],
    ['a fetch ask whose Sandbox type is missing', readFetch(fetchSpec, 'type-missing', 'cluster test')],
    ['a Repo being deleted', repoReading({ ...stated, metadata: { deletionTimestamp: '2026-12-07T00:00:00Z' } })],
    [
      'a Repo whose interval was set otherwise at create',
      repoReading({ ...stated, spec: { url: 'https://x', refreshInterval: '1h' } }),
    ],
    ['an interface of another type', interfaceReading(bridge, [{ iface: 'eno1', type: 'eth' }], new Set())],
    [
      'a network apply with a node it could not read',
      applyReading({ nodes: ['n2'], timeoutSeconds: 30, reloadForeignChanges: false }, new Map(), () => false),
    ],
    [
      'an interface naming a port its node lacks',
      interfaceReading({ ...bridge, options: { bridge_ports: ['enp9s0'] } }, [], new Set()),
    ],
  ])('%s', (_, reading) => {
    expect(reading.inSync).toBe(false);
    expect(reading.converges).toBe(false);
  });
});

describe('a reading the apply converges carries no flag', () => {
  test.each<[string, Reading]>([
    ['an object to adopt', foreignReading(inSync, true, 'shelf a')],
    ['an object to take over', otherStackReading(inSync, 'one', 'two', true, 'shelf a')],
    ['an absent interface', interfaceReading(bridge, [], new Set())],
    ['a Repo whose url differs', repoReading({ ...stated, spec: { ...stated.spec, url: 'https://x' } })],
  ])('%s', (_, reading) => {
    expect(reading.converges).toBeUndefined();
  });
});
