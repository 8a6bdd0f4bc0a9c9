// Contract test, against the REAL API server, of a Repo declared in a namespace the cluster lacks. A list there
// answers 200 with no items, so the plan read it as plain `absent` (apply converges it), and the create's 404 (the
// Status naming the namespace, not the Repo) was taken for a missing type: the apply said `the Repo type
// (repos.core.jr2.dev) is not installed ...; install its CRD first`, with the CRD installed. Now the plan names the
// missing namespace when its identity may read namespaces (else it says `absent` as before), and the apply refuses
// in the same words.
import { randomBytes } from 'node:crypto';
import { kubeDomain } from '../../../handlers/kube/domain';
import type { RepoSpec } from '../../../src/kube/kube-repo';
import { useKubeApiServer, type KubeApiServer } from '../../support/kube-apiserver';
import { CR_VERSION } from '../../support/kube-crds';
import { kubeExpect } from '../../support/kube-http';
import { invoke, invokeBatch } from '../../support/run-handler';

const server = useKubeApiServer();
let kube: KubeApiServer;
beforeAll(() => (kube = server()));

const target = () => ({ name: 'test', kubeconfig: kube.kubeconfig });
const spec = (namespace: string, key: string): RepoSpec => ({
  namespace,
  key,
  version: CR_VERSION,
  url: `git@git.example:me/${key}.git`,
  identity: `git.example/me/${key}`,
  credentials: [],
  refreshInterval: '5m',
});

test('a Repo in a namespace the cluster lacks reads so, and the apply refuses in the same words', async () => {
  const namespace = `gone-${randomBytes(3).toString('hex')}`;
  const mine = spec(namespace, 'site');
  const missing = `the namespace ${namespace} does not exist on Kubernetes cluster test`;
  const batch = await invokeBatch(kubeDomain(), target(), { a: { kind: 'kube-repo', spec: mine } });
  expect(batch.result).toMatchObject({
    'a.in_sync': 'false',
    'a.summary': `absent: ${missing}, so the apply refuses it; create it first`,
  });
  const applied = await invoke(kubeDomain(), 'kube-repo', 'apply', target(), mine);
  expect(applied.code).not.toBe(0);
  expect(applied.stderr).toContain(`Repo ${namespace}/site cannot be written: ${missing}; create it first`);
  expect(applied.stderr).not.toContain('install its CRD');
  // Once the namespace is made, the same stack plans absent and applies.
  await kubeExpect(kube.admin, 'POST', '/api/v1/namespaces', { metadata: { name: namespace } });
  const again = await invokeBatch(kubeDomain(), target(), { a: { kind: 'kube-repo', spec: mine } });
  expect(again.result).toMatchObject({ 'a.summary': 'absent' });
  expect((await invoke(kubeDomain(), 'kube-repo', 'apply', target(), mine)).code).toBe(0);
});
