/**
 * Real terraform (or tofu) on `cdktf synth` output of examples/kube.ts against the REAL kube-apiserver: two Repos
 * created (one someone else made first, never overwritten), a hand edit by another client named in the plan in
 * words, one apply to converge, destroy that leaves the Repos unlabelled, and no kubeconfig token anywhere
 * Terraform writes. Fetch steps go between the drift fix and the destroy (they need the Repos stated).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ANNOTATION_REPO_IDENTITY, LABEL_REPO_BOUND } from '../../src/kube/names';
import { CdktfProject, type CommandOutcome, filesUnder } from '../support/cdktf-project';
import { useKubeApiServer, type KubeApiServer } from '../support/kube-apiserver';
import { CR_VERSION, crPath } from '../support/kube-crds';
import { kubeExpect } from '../support/kube-http';
import { type RbacRule, scopedIdentity, type ScopedIdentity } from '../support/kube-identity';

jest.setTimeout(300_000);

/** The README's RBAC table for KubeRepo, exactly: the stack runs as an identity holding only these. */
const REPO_RULES: RbacRule[] = [
  { apiGroups: ['core.jr2.dev'], resources: ['repos'], verbs: ['get', 'list', 'create', 'patch'] },
  { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
];

const server = useKubeApiServer();
let kube: KubeApiServer;
let identity: ScopedIdentity;
let project: CdktfProject;
/** Every output terraform printed and every state it wrote, for the token check at the end. */
const written: Array<[string, string]> = [];

type LiveRepo = {
  metadata: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: { url: string; secretRef?: { name: string }; refreshInterval?: string };
};
const repoPath = (key?: string) => crPath(kube.namespace, 'repos', key);
const live = (key: string) => kubeExpect<LiveRepo>(kube.admin, 'GET', repoPath(key));
/** A merge patch sent as another client would (kubectl edit, an operator). */
const editByHand = (key: string, patch: object) =>
  kubeExpect(kube.admin, 'PATCH', repoPath(key), patch, [200], 'application/merge-patch+json');

const keep = (label: string, outcome: CommandOutcome) => {
  written.push([label, `${outcome.stdout}\n${outcome.stderr}`]);
  return outcome;
};
const plan = async (label: string) => keep(label, await project.plan(label, '-out', 'plan.bin'));
const apply = async (label: string) =>
  keep(label, await project.must(label, project.terraform('apply', '-auto-approve', '-no-color', 'plan.bin')));
const replacedIn = (outcome: CommandOutcome) =>
  [...outcome.stdout.matchAll(/# (terraform_data\.\S+) must be replaced/g)].map((m) => m[1]).sort();

beforeAll(async () => {
  kube = server();
  // The https Repo's clone Secret; the ssh deploy key is only named, so it need not exist.
  await kubeExpect(kube.admin, 'POST', `/api/v1/namespaces/${kube.namespace}/secrets`, {
    metadata: { name: 'clone-docs' },
    stringData: { username: 'me', password: 'e2e-clone-password' },
  });
  // Its kubeconfig's current-context is read-only: a stack that ignored its context would fail with 403.
  identity = await scopedIdentity(kube, 'homelab', REPO_RULES);
  project = new CdktfProject('build/examples/kube.js', 'kube', {
    HOMELAB_KUBECONFIG: identity.kubeconfig,
    HOMELAB_KUBE_CONTEXT: 'scoped',
    HOMELAB_KUBE_NAMESPACE: kube.namespace,
  });
  await project.must('synth', project.synth());
  await project.must('init', project.terraform('init', '-no-color'));
});

afterAll(() => {
  console.log(`kube e2e timings (s): ${project?.report()}`);
  project?.cleanup();
});

const firstApply =
  'the first apply states both Repos, restating without overwriting the one that existed, ' +
  'and the next plan is clean';
test(firstApply, async () => {
  await kubeExpect(kube.admin, 'POST', repoPath(), {
    apiVersion: `core.jr2.dev/${CR_VERSION}`,
    kind: 'Repo',
    metadata: { name: 'site', labels: { team: 'web' } },
    spec: { url: 'https://git.example/them/site.git', refreshInterval: '1h' },
  });
  const planned = await plan('plan (create)');
  expect(planned.code).toBe(2);
  expect(planned.stdout.match(/data\.external\.\w+: Reading/g)).toEqual(['data.external.home_read: Reading']);
  const applied = await apply('apply (create)');
  expect(applied.stdout).toContain(`Repo ${kube.namespace}/site: exists, restating`);
  expect(applied.stdout).toContain(`Repo ${kube.namespace}/docs: created`);
  expect(await live('site')).toMatchObject({
    metadata: {
      labels: { team: 'web', [LABEL_REPO_BOUND]: 'true' },
      annotations: { [ANNOTATION_REPO_IDENTITY]: 'git.example/me/site' },
    },
    spec: { url: 'git@git.example:me/site.git', secretRef: { name: 'deploy-key-site' }, refreshInterval: '1h' },
  });
  expect(await live('docs')).toMatchObject({
    metadata: { labels: { [LABEL_REPO_BOUND]: 'true' } },
    spec: { url: 'https://git.example/me/docs.git', secretRef: { name: 'clone-docs' }, refreshInterval: '15m' },
  });
  expect((await plan('plan (clean)')).code).toBe(0);
});

const handEdits =
  'a hand edit of spec.url and a removed bound label are named in the plan in words, and one apply fixes both';
test(handEdits, async () => {
  await editByHand('site', { spec: { url: 'git@git.example:hand/site.git' } });
  await editByHand('docs', { metadata: { labels: { [LABEL_REPO_BOUND]: null } } });
  const drifted = await plan('plan (drift)');
  expect(drifted.code).toBe(2);
  const words = drifted.stdout.replace(/\s+/g, ' ');
  expect(words).toContain('2 of 2 objects are not in sync:');
  expect(words).toContain('- site: spec.url is "git@git.example:hand/site.git", want "git@git.example:me/site.git"');
  expect(words).toContain(`- docs: label ${LABEL_REPO_BOUND} is unset, want "true"`);
  expect(replacedIn(drifted)).toEqual(['terraform_data.docs_converge', 'terraform_data.site_converge']);
  expect(drifted.stdout).not.toMatch(/_lifecycle (must be replaced|will be destroyed)/);
  await apply('apply (fix drift)');
  expect((await live('site')).spec.url).toBe('git@git.example:me/site.git');
  expect((await live('docs')).metadata.labels).toMatchObject({ [LABEL_REPO_BOUND]: 'true' });
  expect((await plan('plan (after fix)')).code).toBe(0);
  written.push(['state (stated)', readFileSync(project.statePath, 'utf8')]);
});

test('destroy leaves both Repos in place, without the bound label and the identity annotation', async () => {
  const destroyed = keep(
    'destroy',
    await project.must('destroy', project.terraform('destroy', '-auto-approve', '-no-color')),
  );
  expect(destroyed.stdout).toContain(`Repo ${kube.namespace}/site: unlabelled, the Repo and its cache left in place`);
  const urls = { site: 'git@git.example:me/site.git', docs: 'https://git.example/me/docs.git' };
  for (const [key, url] of Object.entries(urls)) {
    const after = await live(key);
    expect(after.metadata.labels ?? {}).not.toHaveProperty([LABEL_REPO_BOUND]);
    expect(after.metadata.annotations ?? {}).not.toHaveProperty([ANNOTATION_REPO_IDENTITY]);
    expect(after.spec.url).toBe(url);
  }
  expect((await live('site')).metadata.labels).toEqual({ team: 'web' });
  written.push(['state (destroyed)', readFileSync(project.statePath, 'utf8')]);
});

const noToken = 'no token of the kubeconfig reaches the state, a plan, an apply log or cdktf.out; only its path does';
test(noToken, async () => {
  const shown = await project.terraform('show', '-json', 'plan.bin');
  const places: Array<[string, string]> = [
    ...written,
    ['plan JSON', shown.stdout],
    ...filesUnder(join(project.dir, 'cdktf.out')).map((file): [string, string] => [file, readFileSync(file, 'utf8')]),
  ];
  expect(places.map(([place]) => place)).toEqual(expect.arrayContaining(['state (stated)', 'plan (drift)']));
  for (const [place, text] of places) {
    for (const secret of [identity.token, kube.reader.token, kube.admin.token, 'e2e-clone-password'])
      expect({ place, leaked: text.includes(secret) }).toEqual({ place, leaked: false });
  }
  const stated = written.find(([place]) => place === 'state (stated)')?.[1] ?? '';
  expect(stated).toContain(identity.kubeconfig);
});
