// discover's read of cluster/status (an audit last session): a node row without a name was read as a node named
// `undefined`, whose network discover then asked PVE for (`GET nodes/undefined/network`).
import { nodeAddresses } from '../../../../src/discover/read-pve';

test('a cluster/status node without a name is not read as a node named undefined', () => {
  const rows = [
    { type: 'cluster', name: 'home' },
    { type: 'node', name: 'n1', ip: '10.0.0.1' },
    { type: 'node', ip: '10.0.0.2' },
    { type: 'node', name: 'n3' },
  ];
  expect(nodeAddresses(rows)).toEqual(
    new Map([
      ['n1', '10.0.0.1'],
      ['n3', undefined],
    ]),
  );
});
