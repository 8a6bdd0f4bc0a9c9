// Contract test, against the REAL API server, of a Repo edited by hand between its plan and its apply. The apply's
// restate (a merge patch without a resourceVersion) overwrote the edit, spec.url say, though the plan never named
// it: the plan's reading of the Repo now travels to the apply (repo-basis.ts), which refuses that Repo alone and
// writes nothing to it. The cache agent's status writes change the resourceVersion, never the reading: they refuse
// nothing. An apply resource an earlier version made (no basis) restates as before.
import { kubeDomain } from '../../../handlers/kube/domain';
import { LABEL_REPO_BOUND } from '../../../src/kube/names';
import { useKubeApiServer, type KubeApiServer } from '../../support/kube-apiserver';
import { crPath } from '../../support/kube-crds';
import { kubeExpect, kubeRequest } from '../../support/kube-http';
import { invoke, invokeBatch, invokeBatchApply } from '../../support/run-handler';
import { repoSpecIn } from './stack-runs';

const server = useKubeApiServer();
let kube: KubeApiServer;
beforeAll(() => (kube = server()));

const target = () => ({ name: 'test', kubeconfig: kube.kubeconfig });
const spec = (key: string) => repoSpecIn(kube.namespace, key);
type Live = { metadata: { resourceVersion: string; labels?: Record<string, string> }; spec: { url: string } };
const repoPath = (key: string) => crPath(kube.namespace, 'repos', key);
const get = (key: string) => kubeExpect<Live>(kube.admin, 'GET', repoPath(key));
const patch = (key: string, body: object, path = repoPath(key)) =>
  kubeExpect(kube.admin, 'PATCH', path, body, [200], 'application/merge-patch+json');
const unbind = (key: string) => patch(key, { metadata: { labels: { [LABEL_REPO_BOUND]: null } } });
const editUrl = (key: string) => patch(key, { spec: { url: `https://mirror.example/${key}.git` } });
const agentStatus = (key: string, at: string) =>
  patch(key, { status: { nodes: [{ name: 'n1', fetched: at }] } }, `${repoPath(key)}/status`);

/** Makes each Repo as the stack states it, then takes its bound label off, so a plan reads each drifted. */
const drifted = async (...keys: string[]) => {
  for (const key of keys) {
    expect((await invoke(kubeDomain(), 'kube-repo', 'apply', target(), spec(key))).code).toBe(0);
    await unbind(key);
  }
};

/**
 * The kube domain whose apply runs `landing` just before its first PATCH of a Repo: a write that lands between the
 * apply's check of the Repo and its restate.
 */
const landingBeforePatch = (landing: () => Promise<unknown>): ReturnType<typeof kubeDomain> => {
  const domain = kubeDomain();
  let armed = true;
  return {
    ...domain,
    connect: async (...args) => {
      const session = await domain.connect(...args);
      const send = session.client.send.bind(session.client);
      session.client.send = async (method, path, ...rest) => {
        if (armed && method === 'PATCH' && path.includes('/repos/')) {
          armed = false;
          await landing();
        }
        return send(method, path, ...rest);
      };
      return session;
    },
  };
};

/** A plan of `keys`, `between` run after it, then the apply of those Repos with what the plan read (HOMELAB_BASIS). */
const planThenApply = async (
  keys: readonly string[],
  between: () => Promise<unknown>,
  withBasis = true,
  applier = kubeDomain(),
) => {
  const objects = Object.fromEntries(keys.map((key) => [key, { kind: 'kube-repo', spec: spec(key) }]));
  const plan = await invokeBatch(kubeDomain(), target(), objects);
  await between();
  const env = withBasis ? { HOMELAB_BASIS: plan.result?.['.basis'] ?? '' } : {};
  return { plan: plan.result ?? {}, applied: await invokeBatchApply(applier, target(), objects, env) };
};

test('a Repo whose spec.url is edited between plan and apply is refused alone, the edit kept', async () => {
  await drifted('edited', 'other');
  const { plan, applied } = await planThenApply(['edited', 'other'], () => editUrl('edited'));
  expect(plan['edited.summary']).toBe(`label ${LABEL_REPO_BOUND} is unset, want "true"`);
  const before = await get('edited');
  expect(applied.code).not.toBe(0);
  expect(applied.stderr).toContain(
    `edited: not applied: Repo ${kube.namespace}/edited cannot be applied as planned: it was changed after the ` +
      'plan read it (spec.url, spec.secretRef, or a label or annotation the stack owns), so this apply would ' +
      'overwrite that change, which the plan did not say; nothing was written: plan again',
  );
  const after = await get('edited');
  expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  expect(after.spec.url).toBe(`https://mirror.example/edited.git`);
  // The other Repo applied as planned.
  expect((await get('other')).metadata.labels?.[LABEL_REPO_BOUND]).toBe('true');
  // The next plan names the edit, and its apply reverts it.
  const next = await planThenApply(['edited'], async () => undefined);
  expect(next.plan['edited.summary']).toContain('spec.url is "https://mirror.example/edited.git"');
  expect(next.applied.code).toBe(0);
  expect((await get('edited')).spec.url).toBe('https://git.example/me/edited.git');
});

test("the cache agent's status writes between plan and apply refuse nothing", async () => {
  await drifted('busy');
  await agentStatus('busy', 'T0');
  const { applied } = await planThenApply(['busy'], () => agentStatus('busy', 'T1'));
  expect(applied.stderr).not.toContain('cannot be applied');
  expect(applied.code).toBe(0);
  expect(await get('busy')).toMatchObject({
    metadata: { labels: { [LABEL_REPO_BOUND]: 'true' } },
    status: { nodes: [{ name: 'n1', fetched: 'T1' }] },
  });
});

test('a Repo deleted between plan and apply is not created again', async () => {
  await drifted('deleted');
  const { applied } = await planThenApply(['deleted'], () =>
    kubeExpect(kube.admin, 'DELETE', repoPath('deleted'), undefined, [200]),
  );
  expect(applied.code).not.toBe(0);
  expect(applied.stderr).toContain(
    `Repo ${kube.namespace}/deleted cannot be applied as planned: it was deleted after the plan read it, so this ` +
      'apply would create it, which the plan did not say; nothing was written',
  );
  expect((await kubeRequest(kube.admin, 'GET', repoPath('deleted'))).status).toBe(404);
});

test('an apply without a plan reading (an earlier version made its apply resource) restates as before', async () => {
  await drifted('legacy');
  const { applied } = await planThenApply(['legacy'], () => editUrl('legacy'), false);
  expect(applied.code).toBe(0);
  expect((await get('legacy')).spec.url).toBe('https://git.example/me/legacy.git');
});

test("a status write between the apply's check and its restate conflicts (409); the next check passes", async () => {
  await drifted('raced');
  const applier = landingBeforePatch(() => agentStatus('raced', 'T2'));
  const { applied } = await planThenApply(['raced'], async () => undefined, true, applier);
  expect(applied.stderr).toContain(`Repo ${kube.namespace}/raced: changed since its read (409 Conflict): reading it`);
  expect(applied.code).toBe(0);
  expect(await get('raced')).toMatchObject({
    metadata: { labels: { [LABEL_REPO_BOUND]: 'true' } },
    status: { nodes: [{ name: 'n1', fetched: 'T2' }] },
  });
});

test("a hand edit between the apply's check and its restate is refused, never overwritten", async () => {
  await drifted('sniped');
  const applier = landingBeforePatch(() => editUrl('sniped'));
  const { applied } = await planThenApply(['sniped'], async () => undefined, true, applier);
  expect(applied.code).not.toBe(0);
  expect(applied.stderr).toContain(`Repo ${kube.namespace}/sniped cannot be applied as planned: it was changed after`);
  expect((await get('sniped')).spec.url).toBe('https://mirror.example/sniped.git');
});
