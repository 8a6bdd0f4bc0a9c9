// Contract test of stack marks on Repos against the REAL API server (issue 27 item 3): a Repo stack "blue" made
// carries its name; stack "green" declaring it reads it as blue's, naming both stacks, refuses it even with adopt,
// and leaves it on destroy (with and without deleteOnDestroy), unless takeOver takes it. A Repo an earlier version
// marked (no stack annotation) is the declaring stack's: its next apply writes the stack, then it reads in sync.
import { kubeDomain } from '../../../handlers/kube/domain';
import { ANNOTATION_REPO_IDENTITY, ANNOTATION_REPO_STACK, LABEL_REPO_BOUND } from '../../../src/kube/names';
import { useKubeApiServer, type KubeApiServer } from '../../support/kube-apiserver';
import { CR_VERSION, crPath } from '../../support/kube-crds';
import { kubeExpect } from '../../support/kube-http';
import { invoke } from '../../support/run-handler';
import { applyAs, readAs, repoSpecIn } from './stack-runs';

const server = useKubeApiServer();
let kube: KubeApiServer;
beforeAll(() => (kube = server()));

const target = () => ({ name: 'test', kubeconfig: kube.kubeconfig });
const spec = (key: string) => repoSpecIn(kube.namespace, key);
type LiveRepo = {
  metadata: { resourceVersion: string; labels?: Record<string, string>; annotations?: Record<string, string> };
};
const live = (key: string) => kubeExpect<LiveRepo>(kube.admin, 'GET', crPath(kube.namespace, 'repos', key));
const repo = (key: string, more: { adopt?: boolean; takeOver?: boolean } = {}) => ({
  kind: 'kube-repo',
  spec: spec(key),
  ...more,
});
const THEIRS = 'exists on Kubernetes cluster test, marked by stack "blue", not this stack "green"';

test("a Repo blue made reads as blue's to green, naming both stacks; in sync to blue", async () => {
  expect((await applyAs(kubeDomain(), target(), 'blue', { r: repo('shared') })).code).toBe(0);
  expect((await live('shared')).metadata.annotations).toMatchObject({ [ANNOTATION_REPO_STACK]: 'blue' });
  expect((await readAs(kubeDomain(), target(), 'blue', { r: repo('shared') })).result['r.in_sync']).toBe('true');
  const green = await readAs(kubeDomain(), target(), 'green', {
    r: repo('shared'),
    a: repo('shared', { adopt: true }),
  });
  expect(green.result['r.in_sync']).toBe('false');
  expect(green.result['r.summary']).toMatch(new RegExp(`^${THEIRS}: the apply will refuse it, adopt: true or not`));
  expect(green.result['a.summary']).toMatch(new RegExp(`^${THEIRS}: the apply will refuse it`));
});

test("green's apply refuses blue's Repo even with adopt, and changes nothing of it", async () => {
  const before = await live('shared');
  const applied = await applyAs(kubeDomain(), target(), 'green', { r: repo('shared', { adopt: true }) });
  expect(applied.code).not.toBe(0);
  expect(applied.stderr).toContain(`r: not applied: ${THEIRS}`);
  expect(applied.stderr).toContain('set takeOver: true');
  expect((await live('shared')).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
});

// Removal from the code and `retired` run the same destroy hook as destroy: all three are this handler's destroy.
test.each([false, true])("green's destroy leaves blue's Repo (deleteOnDestroy %s), naming both", async (del) => {
  const before = await live('shared');
  const identity = { namespace: kube.namespace, key: 'shared', version: CR_VERSION, deleteOnDestroy: del };
  const run = await invoke(kubeDomain(), 'kube-repo', 'destroy', target(), identity, { HOMELAB_STACK: 'green' });
  expect(run.code).toBe(0);
  expect(run.stderr).toContain(
    `Repo ${kube.namespace}/shared on Kubernetes cluster test: marked by stack "blue", not this stack "green": ` +
      'left as it is (that stack manages it)',
  );
  expect((await live('shared')).metadata).toMatchObject({
    resourceVersion: before.metadata.resourceVersion,
    labels: { [LABEL_REPO_BOUND]: 'true' },
    annotations: { [ANNOTATION_REPO_STACK]: 'blue' },
  });
});

// A destroy by hand (no HOMELAB_STACK) acts for no stack: it leaves what a stack marked, saying how to name it.
test("a destroy by hand that names no stack leaves blue's Repo, even with deleteOnDestroy", async () => {
  const before = await live('shared');
  const identity = { namespace: kube.namespace, key: 'shared', version: CR_VERSION, deleteOnDestroy: true };
  const run = await invoke(kubeDomain(), 'kube-repo', 'destroy', target(), identity, {});
  expect(run.code).toBe(0);
  expect(run.stderr).toContain('marked by stack "blue", and this destroy names no stack: left as it is');
  expect((await live('shared')).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
});

test("takeOver takes blue's Repo: it names green, and blue then reads it as green's", async () => {
  const read = await readAs(kubeDomain(), target(), 'green', { r: repo('shared', { takeOver: true }) });
  expect(read.result['r.summary']).toMatch(new RegExp(`^${THEIRS}: will be taken over \\(takeOver: true\\)`));
  const applied = await applyAs(kubeDomain(), target(), 'green', { r: repo('shared', { takeOver: true }) });
  expect(applied).toMatchObject({ code: 0 });
  expect((await live('shared')).metadata.annotations).toMatchObject({ [ANNOTATION_REPO_STACK]: 'green' });
  expect((await readAs(kubeDomain(), target(), 'green', { r: repo('shared') })).result['r.in_sync']).toBe('true');
  const blue = await readAs(kubeDomain(), target(), 'blue', { r: repo('shared') });
  expect(blue.result['r.summary']).toContain('marked by stack "green", not this stack "blue"');
});

test("an earlier version's Repo (marks, no stack) is the declaring stack's: one apply writes the stack", async () => {
  await kubeExpect(kube.admin, 'POST', crPath(kube.namespace, 'repos'), {
    apiVersion: `core.jr2.dev/${CR_VERSION}`,
    kind: 'Repo',
    metadata: {
      name: 'older',
      labels: { [LABEL_REPO_BOUND]: 'true' },
      annotations: { [ANNOTATION_REPO_IDENTITY]: 'git.example/me/older' },
    },
    spec: { url: 'https://git.example/me/older.git', refreshInterval: '1h' },
  });
  const first = await readAs(kubeDomain(), target(), 'blue', { r: repo('older') });
  expect(first.result['r.in_sync']).toBe('false');
  expect(first.result['r.summary']).not.toContain('marked by');
  expect(JSON.parse(first.result['r.diff'] ?? '{}')).toEqual({
    [`annotation ${ANNOTATION_REPO_STACK}`]: { live: null, want: 'blue' },
  });
  expect((await applyAs(kubeDomain(), target(), 'blue', { r: repo('older') })).code).toBe(0);
  expect((await readAs(kubeDomain(), target(), 'blue', { r: repo('older') })).result['r.in_sync']).toBe('true');
  // blue's own destroy takes its marks off, the stack's among them.
  const identity = { namespace: kube.namespace, key: 'older', version: CR_VERSION, deleteOnDestroy: false };
  const run = await invoke(kubeDomain(), 'kube-repo', 'destroy', target(), identity, { HOMELAB_STACK: 'blue' });
  expect(run).toMatchObject({ code: 0 });
  expect((await live('older')).metadata.annotations ?? {}).not.toHaveProperty([ANNOTATION_REPO_STACK]);
});
