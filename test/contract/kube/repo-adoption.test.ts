// Contract test of adoption for the KubeRepo kind against the REAL API server: a Repo made by hand (neither the
// bound label nor the identity annotation) reads as not created by this stack, the batch apply refuses it without
// adopt and converges the others, adopts it with adopt (its spec unchanged), and a Repo an earlier version created
// (both marks, no other record) reads as the stack's, so an upgrade does not fail.
import { kubeDomain } from '../../../handlers/kube/domain';
import { ANNOTATION_REPO_IDENTITY, LABEL_REPO_BOUND } from '../../../src/kube/names';
import { useKubeApiServer, type KubeApiServer } from '../../support/kube-apiserver';
import { CR_VERSION, crPath } from '../../support/kube-crds';
import { kubeExpect, kubeRequest } from '../../support/kube-http';
import { invoke, invokeBatch, invokeBatchApply } from '../../support/run-handler';
import { repoSpecIn } from './stack-runs';

const server = useKubeApiServer();
let kube: KubeApiServer;
beforeAll(() => (kube = server()));

const target = () => ({ name: 'test', kubeconfig: kube.kubeconfig });
const spec = (key: string) => repoSpecIn(kube.namespace, key);
type LiveRepo = {
  metadata: { resourceVersion: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: { url: string; refreshInterval: string };
};
const live = (key: string) => kubeExpect<LiveRepo>(kube.admin, 'GET', crPath(kube.namespace, 'repos', key));
const make = (key: string, metadata: object = {}) =>
  kubeExpect(kube.admin, 'POST', crPath(kube.namespace, 'repos'), {
    apiVersion: `core.jr2.dev/${CR_VERSION}`,
    kind: 'Repo',
    metadata: { name: key, ...metadata },
    spec: { url: `https://git.example/me/${key}.git`, refreshInterval: '1h' },
  });
const WHERE = 'exists on Kubernetes cluster test, not created by this stack';

test('a hand-made Repo is refused without adopt, naming it and the prop, while the others converge', async () => {
  await make('handmade');
  const before = await live('handmade');
  const read = await invokeBatch(kubeDomain(), target(), { hand: { kind: 'kube-repo', spec: spec('handmade') } });
  expect(read.result?.['hand.summary']).toMatch(
    new RegExp(`^${WHERE}: the apply will refuse it: set adopt: true on its construct to adopt it`),
  );
  const applied = await invokeBatchApply(kubeDomain(), target(), {
    hand: { kind: 'kube-repo', spec: spec('handmade') },
    fresh: { kind: 'kube-repo', spec: spec('fresh') },
  });
  expect(applied.code).not.toBe(0);
  expect(applied.stderr).toContain(`hand: not applied: ${WHERE}, and its construct does not say adopt: true`);
  expect((await live('handmade')).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  expect((await live('fresh')).metadata.labels).toMatchObject({ [LABEL_REPO_BOUND]: 'true' });
});

test('with adopt the plan says it will be adopted and the apply marks it, its spec unchanged', async () => {
  const read = await invokeBatch(kubeDomain(), target(), {
    hand: { kind: 'kube-repo', spec: spec('handmade'), adopt: true },
  });
  expect(read.result?.['hand.summary']).toMatch(new RegExp(`^${WHERE}: will be adopted; label `));
  const applied = await invokeBatchApply(kubeDomain(), target(), {
    hand: { kind: 'kube-repo', spec: spec('handmade'), adopt: true },
  });
  expect(applied.code).toBe(0);
  expect(await live('handmade')).toMatchObject({
    metadata: {
      labels: { [LABEL_REPO_BOUND]: 'true' },
      annotations: { [ANNOTATION_REPO_IDENTITY]: 'git.example/me/handmade' },
    },
    spec: { url: 'https://git.example/me/handmade.git', refreshInterval: '1h' },
  });
  const again = await invokeBatch(kubeDomain(), target(), { hand: { kind: 'kube-repo', spec: spec('handmade') } });
  expect(again.result?.['hand.in_sync']).toBe('true');
});

test('a Repo an earlier version created (its two marks, nothing else) is in sync: upgrades never fail', async () => {
  await make('older', {
    labels: { [LABEL_REPO_BOUND]: 'true' },
    annotations: { [ANNOTATION_REPO_IDENTITY]: 'git.example/me/older' },
  });
  const read = await invokeBatch(kubeDomain(), target(), { old: { kind: 'kube-repo', spec: spec('older') } });
  expect(read.result?.['old.in_sync']).toBe('true');
});

// Issue 27: a Repo the apply refused (never adopted) was deleted when its construct was removed, and by destroy
// with deleteOnDestroy; removal runs the same destroy hook as destroy, so both are this handler's destroy.
test.each([false, true])('destroy leaves a Repo without the stack marks as it is (deleteOnDestroy %s)', async (del) => {
  const key = `refused-${String(del)}`;
  await make(key, { labels: { team: 'theirs' } });
  const before = await live(key);
  const identity = { namespace: kube.namespace, key, version: CR_VERSION, deleteOnDestroy: del };
  const destroyed = await invoke(kubeDomain(), 'kube-repo', 'destroy', target(), identity);
  expect(destroyed).toMatchObject({ code: 0, stderr: expect.stringContaining('carries no mark of this stack') });
  expect((await live(key)).metadata).toMatchObject({
    resourceVersion: before.metadata.resourceVersion,
    labels: { team: 'theirs' },
  });
});

test('destroy with deleteOnDestroy deletes a Repo the stack marked', async () => {
  await make('ours-marked', {
    labels: { [LABEL_REPO_BOUND]: 'true' },
    annotations: { [ANNOTATION_REPO_IDENTITY]: 'git.example/me/ours-marked' },
  });
  const identity = { namespace: kube.namespace, key: 'ours-marked', version: CR_VERSION, deleteOnDestroy: true };
  const destroyed = await invoke(kubeDomain(), 'kube-repo', 'destroy', target(), identity);
  expect(destroyed).toMatchObject({ code: 0, stderr: expect.stringContaining('deleted') });
  const gone = await kubeRequest(kube.admin, 'GET', crPath(kube.namespace, 'repos', 'ours-marked'));
  expect(gone.status).toBe(404);
});
