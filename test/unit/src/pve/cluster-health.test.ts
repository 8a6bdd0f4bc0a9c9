import { clusterHealth } from '../../../../src/pve/cluster-health';

const cluster = (quorate: unknown) => ({ type: 'cluster', id: 'cluster', name: 'tb4', nodes: 3, version: 3, quorate });
const node = (name: string, online: unknown) => ({
  type: 'node',
  id: `node/${name}`,
  name,
  nodeid: 1,
  local: 0,
  online,
});

describe('clusterHealth', () => {
  test.each<[string, unknown, boolean, string, string]>([
    [
      'a quorate cluster with every member online',
      [cluster(1), node('n2', 1), node('n3', 1), node('n4', 1)],
      true,
      'quorate=true offline=[]',
      'quorate, 3/3 online',
    ],
    [
      'a quorate cluster with one member offline',
      [cluster(1), node('n2', 1), node('n3', 0), node('n4', 1)],
      false,
      'quorate=true offline=[n3]',
      'quorate, 2/3 online',
    ],
    [
      'a cluster that lost quorum',
      [cluster(0), node('n2', 1), node('n3', 0), node('n4', 0)],
      false,
      'quorate=false offline=[n3, n4]',
      'not quorate, 1/3 online',
    ],
    [
      'a standalone node (no cluster row, no quorate)',
      [{ type: 'node', id: 'node/pve', name: 'pve', nodeid: 0, online: 1 }],
      true,
      'quorate=true offline=[]',
      'standalone, 1/1 online',
    ],
    [
      'a node row without online',
      [cluster(1), { type: 'node', name: 'n2' }],
      false,
      'quorate=true offline=[n2]',
      'quorate, 0/1 online',
    ],
    [
      'a cluster row without quorate',
      [{ type: 'cluster' }, node('n2', 1)],
      false,
      'quorate=false offline=[]',
      'not quorate, 1/1 online',
    ],
    ['JSON booleans', [cluster(true), node('n2', true)], true, 'quorate=true offline=[]', 'quorate, 1/1 online'],
    ['no node rows', [cluster(1)], false, 'cluster/status gave no node rows', 'unreadable'],
    ['an answer that is not a list', { data: [] }, false, 'cluster/status gave no node rows', 'unreadable'],
  ])('%s', (_, data, healthy, reason, detail) => {
    expect(clusterHealth(data)).toMatchObject({ healthy, reason, detail });
  });
});
