// Contract test of the KubeRepo kind through its handler CLI against the REAL API server: create never overwrites
// a Repo someone else created, a hand edit reads as drift in words and apply restates it, destroy unlabels and
// leaves the Repo, an https clone Secret is named only when it exists, and a type the server lacks reads as absent.
import { kubeDomain } from '../../../handlers/kube/domain';
import { ANNOTATION_REPO_IDENTITY, ANNOTATION_REPO_LAST_ATTACHED, LABEL_REPO_BOUND } from '../../../src/kube/names';
import type { RepoSpec } from '../../../src/kube/kube-repo';
import { useKubeApiServer, type KubeApiServer } from '../../support/kube-apiserver';
import { CR_VERSION, crPath } from '../../support/kube-crds';
import { kubeExpect, kubeRequest } from '../../support/kube-http';
import { invoke, invokeBatch } from '../../support/run-handler';

const server = useKubeApiServer();
let kube: KubeApiServer;
beforeAll(() => (kube = server()));

const target = () => ({ name: 'test', kubeconfig: kube.kubeconfig });
const spec = (key: string, url: string, extra: Partial<RepoSpec> = {}): RepoSpec => ({
  namespace: kube.namespace,
  key,
  version: CR_VERSION,
  url,
  identity: `git.example/me/${key}`,
  credentials: [{ match: 'git.example/', ssh: { secret: 'deploy-key' }, https: { secret: 'clone' } }],
  refreshInterval: '5m',
  ...extra,
});
const identity = (key: string, deleteOnDestroy = false) => ({
  namespace: kube.namespace,
  key,
  version: CR_VERSION,
  deleteOnDestroy,
});
type LiveRepo = {
  metadata: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: { url: string; secretRef?: { name: string } };
};
const live = (key: string) => kubeExpect<LiveRepo>(kube.admin, 'GET', crPath(kube.namespace, 'repos', key));

test('a Repo someone else created first is restated, never overwritten', async () => {
  await kubeExpect(kube.admin, 'POST', crPath(kube.namespace, 'repos'), {
    apiVersion: `core.jr2.dev/${CR_VERSION}`,
    kind: 'Repo',
    metadata: { name: 'site', labels: { team: 'web' }, annotations: { [ANNOTATION_REPO_LAST_ATTACHED]: 'T1' } },
    spec: { url: 'https://git.example/them/site.git', refreshInterval: '1h' },
  });
  const mine = spec('site', 'git@git.example:me/site.git');
  const applied = await invoke(kubeDomain(), 'kube-repo', 'apply', target(), mine);
  expect(applied).toMatchObject({ code: 0, stderr: expect.stringContaining('exists, restating') });
  expect(await live('site')).toMatchObject({
    metadata: {
      labels: { team: 'web', [LABEL_REPO_BOUND]: 'true' },
      annotations: { [ANNOTATION_REPO_LAST_ATTACHED]: 'T1', [ANNOTATION_REPO_IDENTITY]: 'git.example/me/site' },
    },
    spec: { url: 'git@git.example:me/site.git', secretRef: { name: 'deploy-key' }, refreshInterval: '1h' },
  });
});

test('a hand edit of spec.url and a removed label read as drift naming both; apply restates them', async () => {
  const mine = spec('docs', 'git@git.example:me/docs.git');
  expect((await invoke(kubeDomain(), 'kube-repo', 'apply', target(), mine)).code).toBe(0);
  await kubeExpect(
    kube.admin,
    'PATCH',
    crPath(kube.namespace, 'repos', 'docs'),
    {
      spec: { url: 'git@git.example:hand/docs.git' },
      metadata: { labels: { [LABEL_REPO_BOUND]: null } },
    },
    [200],
    'application/merge-patch+json',
  );
  const other = spec('site', 'git@git.example:me/site.git');
  const batch = await invokeBatch(kubeDomain(), target(), {
    a: { kind: 'kube-repo', spec: mine },
    b: { kind: 'kube-repo', spec: other },
  });
  expect(batch.result?.['a.summary']).toBe(
    `spec.url is "git@git.example:hand/docs.git", want "git@git.example:me/docs.git"; label ${LABEL_REPO_BOUND} ` +
      'is unset, want "true"',
  );
  expect(batch.result?.['b.in_sync']).toBe('true');
  expect((await invoke(kubeDomain(), 'kube-repo', 'apply', target(), mine)).code).toBe(0);
  expect((await invoke(kubeDomain(), 'kube-repo', 'read', target(), mine)).result?.in_sync).toBe('true');
});

// Audit: a Repo made by hand with a token in its url put the token in the batch result (the state) and the plan.
test('a live url with a token reads as drift without the token in any result', async () => {
  await kubeExpect(kube.admin, 'POST', crPath(kube.namespace, 'repos'), {
    apiVersion: `core.jr2.dev/${CR_VERSION}`,
    kind: 'Repo',
    metadata: { name: 'tokened' },
    spec: { url: 'https://oauth2:ghp_SECRET@git.example/me/tokened.git', refreshInterval: '5m' },
  });
  const mine = spec('tokened', 'git@git.example:me/tokened.git');
  const batch = await invokeBatch(kubeDomain(), target(), { a: { kind: 'kube-repo', spec: mine, adopt: true } });
  expect(batch.result?.['a.summary']).toContain(
    'spec.url is "https://***@git.example/me/tokened.git", want "git@git.example:me/tokened.git"',
  );
  expect(JSON.stringify(batch.result)).not.toContain('SECRET');
});

test('an https url names the clone Secret only once it exists (metadata-only check)', async () => {
  const https = spec('web', 'https://git.example/me/web.git');
  await invoke(kubeDomain(), 'kube-repo', 'apply', target(), https);
  expect(await live('web')).not.toHaveProperty('spec.secretRef');
  await kubeExpect(kube.admin, 'POST', `/api/v1/namespaces/${kube.namespace}/secrets`, {
    metadata: { name: 'clone' },
    stringData: { password: 'p' },
  });
  expect((await invoke(kubeDomain(), 'kube-repo', 'read', target(), https)).result?.summary).toBe(
    'spec.secretRef is unset, want "clone"',
  );
  await invoke(kubeDomain(), 'kube-repo', 'apply', target(), https);
  expect(await live('web')).toMatchObject({ spec: { secretRef: { name: 'clone' } } });
});

test('destroy removes the bound label and identity annotation and leaves the Repo', async () => {
  const destroyed = await invoke(kubeDomain(), 'kube-repo', 'destroy', target(), identity('docs'));
  expect(destroyed).toMatchObject({ code: 0, stderr: expect.stringContaining('unlabelled') });
  const after = await live('docs');
  expect(after.metadata.labels ?? {}).not.toHaveProperty([LABEL_REPO_BOUND]);
  expect(after.metadata.annotations ?? {}).not.toHaveProperty([ANNOTATION_REPO_IDENTITY]);
  expect(after.spec.url).toBe('git@git.example:me/docs.git');
});

test('a Repo type the cluster does not serve reads as absent and apply fails saying so', async () => {
  const missing = spec('site', 'git@git.example:me/site.git', { version: 'v9' });
  const read = await invoke(kubeDomain(), 'kube-repo', 'read', target(), missing);
  expect(read.result).toMatchObject({
    in_sync: 'false',
    summary:
      'absent: the Repo type (repos.core.jr2.dev) is not installed on Kubernetes cluster test, so the apply refuses ' +
      'it; install its CRD first',
  });
  const applied = await invoke(kubeDomain(), 'kube-repo', 'apply', target(), missing);
  expect(applied.code).not.toBe(0);
  expect(applied.stderr).toContain('the Repo type (repos.core.jr2.dev) is not installed on Kubernetes cluster test');
  expect((await kubeRequest(kube.admin, 'GET', crPath(kube.namespace, 'repos', 'site'))).status).toBe(200);
});

// Regression: a Repo deleted and held by a finalizer read in sync, and the apply restated it (exit 0) while it went
// once the finalizer was released. The plan names its deletion now, and the apply refuses without writing. Then its
// line said only `deletionTimestamp … want unset` under the check's "apply converges it": it says the apply refuses.
test('a Repo being deleted reads so, and the apply refuses it until it is gone, then creates it', async () => {
  const mine = spec('going', 'git@git.example:me/going.git');
  const path = crPath(kube.namespace, 'repos', 'going');
  const hold = (finalizers: string[] | null) =>
    kubeExpect(kube.admin, 'PATCH', path, { metadata: { finalizers } }, [200], 'application/merge-patch+json');
  expect((await invoke(kubeDomain(), 'kube-repo', 'apply', target(), mine)).code).toBe(0);
  await hold(['example.com/hold']);
  await kubeExpect(kube.admin, 'DELETE', path, undefined, [200, 202]);
  const batch = await invokeBatch(kubeDomain(), target(), { a: { kind: 'kube-repo', spec: mine } });
  expect(batch.result).toMatchObject({
    'a.in_sync': 'false',
    'a.summary': expect.stringMatching(
      /^metadata\.deletionTimestamp is "[0-9T:-]+Z", want unset; the apply refuses it while it is being deleted \(held /
        .source + /by the finalizers "example\.com\/hold"\), and creates it once it is gone$/.source,
    ),
  });
  const before = await kubeExpect<{ metadata: { resourceVersion: string } }>(kube.admin, 'GET', path);
  const refused = await invoke(kubeDomain(), 'kube-repo', 'apply', target(), mine);
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toMatch(
    /is being deleted: deleted at \S+, held by the finalizers "example\.com\/hold": it goes once they are done/,
  );
  const after = await kubeExpect<{ metadata: { resourceVersion: string } }>(kube.admin, 'GET', path);
  expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  await hold(null);
  expect((await invokeBatch(kubeDomain(), target(), { a: { kind: 'kube-repo', spec: mine } })).result).toMatchObject({
    'a.summary': 'absent',
  });
  expect((await invoke(kubeDomain(), 'kube-repo', 'apply', target(), mine)).code).toBe(0);
  expect((await invoke(kubeDomain(), 'kube-repo', 'read', target(), mine)).result?.in_sync).toBe('true');
});

// Regression: `secretRef: {}` set by hand read in sync (the diff compared its name alone), though it is not the absent
// one the stack states and what a controller makes of it is unknown.
test('a secretRef with no name set by hand reads as drift, and the apply removes it', async () => {
  const bare = spec('bare', 'https://git.example/me/bare.git', { credentials: [] });
  const path = crPath(kube.namespace, 'repos', 'bare');
  expect((await invoke(kubeDomain(), 'kube-repo', 'apply', target(), bare)).code).toBe(0);
  expect((await invoke(kubeDomain(), 'kube-repo', 'read', target(), bare)).result?.in_sync).toBe('true');
  await kubeExpect(kube.admin, 'PATCH', path, { spec: { secretRef: {} } }, [200], 'application/merge-patch+json');
  expect((await live('bare')).spec.secretRef).toEqual({});
  expect((await invoke(kubeDomain(), 'kube-repo', 'read', target(), bare)).result).toMatchObject({
    in_sync: 'false',
    summary: 'spec.secretRef is {}, want unset',
  });
  expect((await invoke(kubeDomain(), 'kube-repo', 'apply', target(), bare)).code).toBe(0);
  expect(await live('bare')).not.toHaveProperty('spec.secretRef');
  expect((await invoke(kubeDomain(), 'kube-repo', 'read', target(), bare)).result?.in_sync).toBe('true');
});

// Regression: spec.refreshInterval is set at create only, so a Repo whose interval differs from the declared one
// read plainly "in sync" and an apply changing only the interval said nothing of leaving it: the plan implied it.
test('a refreshInterval not as declared reads in sync saying the apply leaves it, as the apply says', async () => {
  const mine = spec('wiki', 'git@git.example:me/wiki.git');
  const path = crPath(kube.namespace, 'repos', 'wiki');
  expect((await invoke(kubeDomain(), 'kube-repo', 'apply', target(), mine)).code).toBe(0);
  await kubeExpect(
    kube.admin,
    'PATCH',
    path,
    { spec: { refreshInterval: '1h' } },
    [200],
    'application/merge-patch+json',
  );
  const left = 'spec.refreshInterval is "1h", declared "5m": set at create only, so the apply leaves it';
  expect((await invoke(kubeDomain(), 'kube-repo', 'read', target(), mine)).result).toEqual({
    in_sync: 'true',
    summary: `in sync; ${left}`,
    diff: '{}',
  });
  const moved = { ...mine, url: 'git@git.example:me/wiki2.git' };
  expect((await invoke(kubeDomain(), 'kube-repo', 'read', target(), moved)).result?.summary).toBe(
    `spec.url is "git@git.example:me/wiki.git", want "git@git.example:me/wiki2.git"; ${left}`,
  );
  const applied = await invoke(kubeDomain(), 'kube-repo', 'apply', target(), moved);
  expect([applied.code, applied.stderr]).toEqual([0, expect.stringContaining(left)]);
  expect(await live('wiki')).toMatchObject({ spec: { url: 'git@git.example:me/wiki2.git', refreshInterval: '1h' } });
});
