/**
 * Plans with a read-only Kubernetes identity (issue 19 item 1), with real terraform or OpenTofu on examples/kube.ts
 * against the REAL kube-apiserver: the stack (two Repos, no fetch ask) writes as a ServiceAccount bound to exactly the
 * Repo and Secret verbs of the README's write column, and plans as one bound to those of its read column
 * (`readKubeconfig`, a second file). The apply converges with both;
 * a plan with ONLY the read kubeconfig on disk is clean, then shows a hand edit in words; the write identity given
 * under the read name still plans; a read identity without `list` on Repos fails the plan naming the verb, the
 * context and its kubeconfig.
 */
import { copyFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { CdktfProject } from '../support/cdktf-project';
import { useKubeApiServer, type KubeApiServer } from '../support/kube-apiserver';
import { crPath } from '../support/kube-crds';
import { kubeExpect } from '../support/kube-http';
import { type RbacRule, scopedIdentity } from '../support/kube-identity';

jest.setTimeout(300_000);

/** The README's Least privilege table for KubeRepo, column by column (each write verb is needed: measured). */
const READ_RULES: RbacRule[] = [
  { apiGroups: ['core.jr2.dev'], resources: ['repos'], verbs: ['list'] },
  { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
];
const WRITE_RULES: RbacRule[] = [
  { apiGroups: ['core.jr2.dev'], resources: ['repos'], verbs: ['list', 'get', 'create', 'patch'] },
  { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
];

const server = useKubeApiServer();
let kube: KubeApiServer;
let project: CdktfProject;
/** The files the stack names, and the identities' own kubeconfigs copied over them between steps. */
let files: { write: string; read: string; planner: string; homelab: string; blind: string };

beforeAll(async () => {
  kube = server();
  await kubeExpect(kube.admin, 'POST', `/api/v1/namespaces/${kube.namespace}/secrets`, {
    metadata: { name: 'clone-docs' },
    stringData: { username: 'me', password: 'e2e-clone-password' },
  });
  const homelab = (await scopedIdentity(kube, 'homelab', WRITE_RULES)).kubeconfig;
  const planner = (await scopedIdentity(kube, 'planner', READ_RULES)).kubeconfig;
  const blind = (await scopedIdentity(kube, 'blind', READ_RULES.slice(1))).kubeconfig;
  const dir = join(homelab, '..');
  files = { write: join(dir, 'write.kubeconfig'), read: join(dir, 'read.kubeconfig'), planner, homelab, blind };
  copyFileSync(homelab, files.write);
  copyFileSync(planner, files.read);
  project = new CdktfProject('build/examples/kube.js', 'kube', {
    HOMELAB_KUBECONFIG: files.write,
    HOMELAB_KUBE_CONTEXT: 'scoped',
    HOMELAB_KUBE_READ_KUBECONFIG: files.read,
    HOMELAB_KUBE_READ_CONTEXT: 'scoped',
    HOMELAB_KUBE_NAMESPACE: kube.namespace,
  });
  await project.must('synth', project.synth());
  await project.must('init', project.terraform('init', '-no-color'));
});

afterAll(() => {
  console.log(`read-identity-kube e2e timings (s): ${project?.report()}`);
  project?.cleanup();
});

/** A plan with the write kubeconfig moved away, so only `identity`'s kubeconfig, at the read path, exists. */
const planWithOnly = async (identity: string) => {
  copyFileSync(identity, files.read);
  renameSync(files.write, `${files.write}.away`);
  try {
    return await project.terraform('plan', '-detailed-exitcode', '-no-color');
  } finally {
    renameSync(`${files.write}.away`, files.write);
  }
};
const words = (text: string) => text.replace(/\s+/g, ' ');

test('the apply converges with both identities, and a plan with ONLY the read kubeconfig is clean', async () => {
  const applied = await project.must('apply', project.terraform('apply', '-auto-approve', '-no-color'));
  expect(applied.stdout).toContain(`Repo ${kube.namespace}/site: created`);
  expect(applied.stdout).toContain(`Repo ${kube.namespace}/docs: created`);
  expect(await planWithOnly(files.planner)).toMatchObject({ code: 0, stderr: '' });
});

test('a plan with ONLY the read kubeconfig shows a hand edit, in words', async () => {
  const site = crPath(kube.namespace, 'repos', 'site');
  const edit = { spec: { url: 'git@git.example:hand/site.git' } };
  await kubeExpect(kube.admin, 'PATCH', site, edit, [200], 'application/merge-patch+json');
  const plan = await planWithOnly(files.planner);
  expect(plan.code).toBe(2);
  expect(words(plan.stdout)).toContain(
    '- site: spec.url is "git@git.example:hand/site.git", want "git@git.example:me/site.git"',
  );
});

test('the write identity given under the read name still plans', async () => {
  const plan = await planWithOnly(files.homelab);
  expect(plan.code).toBe(2);
  expect(words(plan.stdout)).toContain('- site: spec.url is "git@git.example:hand/site.git"');
});

test('a read identity without list on Repos fails the plan naming the verb, the context and its file', async () => {
  const plan = await planWithOnly(files.blind);
  expect(plan.code).toBe(1);
  expect(words(plan.stderr)).toContain(
    `User "system:serviceaccount:${kube.namespace}:blind" cannot list resource "repos" in API group ` +
      `"core.jr2.dev" in the namespace "${kube.namespace}"; grant the verb to the identity of context "scoped" ` +
      `in ${files.read}`,
  );
});
