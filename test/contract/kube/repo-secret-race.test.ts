// Contract test, against the REAL API server, of an https Repo whose clone Secret goes or comes between the plan and
// the apply. The Repo states `spec.secretRef` only while that Secret exists, and the apply checked it again: a Secret
// deleted after the plan made the apply drop spec.secretRef (and one created after it add it), which the plan never
// named. The plan's reading of the Secret now travels to the apply, which refuses such a Repo without writing.
import { kubeDomain } from '../../../handlers/kube/domain';
import type { RepoSpec } from '../../../src/kube/kube-repo';
import { LABEL_REPO_BOUND } from '../../../src/kube/names';
import { useKubeApiServer, type KubeApiServer } from '../../support/kube-apiserver';
import { CR_VERSION, crPath } from '../../support/kube-crds';
import { kubeExpect, kubeRequest } from '../../support/kube-http';
import { invoke, invokeBatch, invokeBatchApply } from '../../support/run-handler';

const server = useKubeApiServer();
let kube: KubeApiServer;
beforeAll(() => (kube = server()));

const target = () => ({ name: 'test', kubeconfig: kube.kubeconfig });
const spec = (key: string): RepoSpec => ({
  namespace: kube.namespace,
  key,
  version: CR_VERSION,
  url: `https://git.example/me/${key}.git`,
  identity: `git.example/me/${key}`,
  credentials: [{ match: 'git.example/me/', https: { secret: `${key}-clone` } }],
  refreshInterval: '5m',
});
type Live = { metadata: { resourceVersion: string }; spec: { secretRef?: { name: string } } };
const repoPath = (key: string) => crPath(kube.namespace, 'repos', key);
const secrets = () => `/api/v1/namespaces/${kube.namespace}/secrets`;
const makeSecret = (name: string) =>
  kubeExpect(kube.admin, 'POST', secrets(), { metadata: { name }, stringData: { password: 'p' } });
const dropSecret = (name: string) => kubeExpect(kube.admin, 'DELETE', `${secrets()}/${name}`, undefined, [200, 202]);
const unbind = (key: string) =>
  kubeExpect(
    kube.admin,
    'PATCH',
    repoPath(key),
    { metadata: { labels: { [LABEL_REPO_BOUND]: null } } },
    [200],
    'application/merge-patch+json',
  );

/**
 * A plan (the batch read), `between` run after it, then the apply of what the plan found drifted with the
 * environment the target's apply resource builds from that plan's read (the drifted names, and what the plan read
 * besides each object).
 */
const planThenApply = async (mine: RepoSpec, between: () => Promise<unknown>) => {
  const plan = await invokeBatch(kubeDomain(), target(), { r: { kind: 'kube-repo', spec: mine } });
  await between();
  const env = { HOMELAB_BASIS: plan.result?.['.basis'] ?? '' };
  const applied = await invokeBatchApply(kubeDomain(), target(), { r: { kind: 'kube-repo', spec: mine } }, env);
  return { plan: plan.result ?? {}, applied };
};

test('a Repo whose clone Secret is deleted between plan and apply is refused, its secretRef kept', async () => {
  const mine = spec('gone');
  await makeSecret('gone-clone');
  expect((await invoke(kubeDomain(), 'kube-repo', 'apply', target(), mine)).code).toBe(0);
  await unbind('gone');
  const before = await kubeExpect<Live>(kube.admin, 'GET', repoPath('gone'));
  const { plan, applied } = await planThenApply(mine, () => dropSecret('gone-clone'));
  expect(plan['r.summary']).toBe(`label ${LABEL_REPO_BOUND} is unset, want "true"`);
  expect(applied.code).not.toBe(0);
  expect(applied.stderr).toContain(
    `r: not applied: Repo ${kube.namespace}/gone cannot be applied as planned: its clone Secret ` +
      `${kube.namespace}/gone-clone was deleted after the plan read it, so this apply would write the Repo without ` +
      'spec.secretRef, which the plan did not say; nothing was written: plan again, and that plan reads the Secret ' +
      'as it is now',
  );
  const after = await kubeExpect<Live>(kube.admin, 'GET', repoPath('gone'));
  expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  expect(after.spec.secretRef).toEqual({ name: 'gone-clone' });
  // The next plan names the change, and its apply makes it.
  const next = await planThenApply(mine, async () => undefined);
  expect(next.plan['r.summary']).toBe(
    `spec.secretRef is "gone-clone", want unset; label ${LABEL_REPO_BOUND} is unset, want "true"; its clone Secret ` +
      `${kube.namespace}/gone-clone does not exist, so the Repo states no spec.secretRef until it does`,
  );
  expect(next.applied.code).toBe(0);
  expect(await kubeExpect<Live>(kube.admin, 'GET', repoPath('gone'))).not.toHaveProperty('spec.secretRef');
});

test('an absent Repo whose clone Secret is deleted between plan and apply is not created', async () => {
  const mine = spec('fresh');
  await makeSecret('fresh-clone');
  const { plan, applied } = await planThenApply(mine, () => dropSecret('fresh-clone'));
  expect(plan['r.summary']).toBe('absent');
  expect(applied.code).not.toBe(0);
  expect(applied.stderr).toContain(
    `its clone Secret ${kube.namespace}/fresh-clone was deleted after the plan read it, so this apply would write ` +
      'the Repo without spec.secretRef, which the plan did not say; nothing was written',
  );
  expect((await kubeRequest(kube.admin, 'GET', repoPath('fresh'))).status).toBe(404);
});

test('a Repo whose clone Secret is created between plan and apply is refused, no secretRef added', async () => {
  const mine = spec('late');
  expect((await invoke(kubeDomain(), 'kube-repo', 'apply', target(), mine)).code).toBe(0);
  await unbind('late');
  const { plan, applied } = await planThenApply(mine, () => makeSecret('late-clone'));
  expect(plan['r.summary']).toMatch(new RegExp(`^label ${LABEL_REPO_BOUND} is unset, want "true"; its clone Secret `));
  expect(applied.code).not.toBe(0);
  expect(applied.stderr).toContain(
    `its clone Secret ${kube.namespace}/late-clone was created after the plan read it absent, so this apply would ` +
      'write spec.secretRef "late-clone", which the plan did not say; nothing was written',
  );
  expect(await kubeExpect<Live>(kube.admin, 'GET', repoPath('late'))).not.toHaveProperty('spec.secretRef');
});

test('a Secret unchanged since the plan lets the apply restate the Repo as the plan said', async () => {
  const mine = spec('kept');
  await makeSecret('kept-clone');
  expect((await invoke(kubeDomain(), 'kube-repo', 'apply', target(), mine)).code).toBe(0);
  await unbind('kept');
  const { applied } = await planThenApply(mine, async () => undefined);
  expect(applied.code).toBe(0);
  expect(await kubeExpect<Live>(kube.admin, 'GET', repoPath('kept'))).toMatchObject({
    spec: { secretRef: { name: 'kept-clone' } },
  });
});

// Regression: an https Repo whose clone Secret does not exist read plainly `absent`, and the apply created it
// without spec.secretRef, though its construct names the Secret: the plan now says so, as long as it is missing.
test('a Repo whose clone Secret does not exist says so in its plan, created and in sync alike', async () => {
  const mine = spec('bare');
  const note =
    `its clone Secret ${kube.namespace}/bare-clone does not exist, so the Repo states no spec.secretRef until ` +
    'it does';
  const plan = await invokeBatch(kubeDomain(), target(), { r: { kind: 'kube-repo', spec: mine } });
  expect(plan.result?.['r.summary']).toBe(`absent; ${note}`);
  expect((await invoke(kubeDomain(), 'kube-repo', 'apply', target(), mine)).code).toBe(0);
  expect(await kubeExpect<Live>(kube.admin, 'GET', repoPath('bare'))).not.toHaveProperty('spec.secretRef');
  expect((await invoke(kubeDomain(), 'kube-repo', 'read', target(), mine)).result).toMatchObject({
    in_sync: 'true',
    summary: `in sync; ${note}`,
  });
});
