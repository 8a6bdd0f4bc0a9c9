// The first line of discover's summary (an audit last session): with nothing declared it read
// `declared 0 objects, each adopt: true: `, a colon before an empty list, and one object was `1 objects`.
import { type Declaration, type Discovered, Ref } from '../../../../src/discover/declaration';
import { discoveredStack } from '../../../../src/discover/stack';

const firstLine = (parts: Discovered[]) =>
  discoveredStack(parts, { stack: 's', from: 'cdktf-homelab', language: 'ts', read: [] }).summary[0];

const repo = (id: string): Declaration => ({ key: id, construct: 'KubeRepo', id, props: { cluster: new Ref('kube') } });
const cluster: Declaration = { key: 'kube', construct: 'KubeCluster', id: 'kube', props: {} };

test.each<[string, Discovered[], string]>([
  ['nothing was read', [], 'declared no objects'],
  [
    'everything read was left out',
    [{ declarations: [], skipped: [{ what: 'Repo jr2/c', why: 'url must be ...' }] }],
    'declared no objects: each one read is left out, below',
  ],
  ['one object', [{ declarations: [cluster, repo('a')], skipped: [] }], 'declared 1 object, adopt: true: 1 KubeRepo'],
  [
    'two objects',
    [{ declarations: [cluster, repo('a'), repo('b')], skipped: [] }],
    'declared 2 objects, each adopt: true: 2 KubeRepo',
  ],
])('the summary counts what was declared in words when %s', (_, parts, line) => {
  expect(firstLine(parts)).toBe(line);
});
