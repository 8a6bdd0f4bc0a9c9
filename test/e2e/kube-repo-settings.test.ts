/**
 * A KubeRepo's destroy settings changed on a Repo the stack keeps, with real terraform (or tofu) on
 * test/e2e/kube-settings-app.ts against the REAL kube-apiserver, its Repo CRD serving v1alpha1 and v1beta1 (an
 * audit, 2026-12-05: turning deleteOnDestroy off replaced the lifecycle, whose destroy hook ran with the stored
 * `true` and deleted the Repo). Each change (deleteOnDestroy off, on, another version) replaces the Repo's lifecycle,
 * whose identity digest is kept as earlier versions stored it, and the replaced lifecycle's hook leaves the Repo
 * as it is: the same object (its uid), still marked as the stack's, and the next plan is clean. A destroy then does
 * what the last apply recorded.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ANNOTATION_REPO_STACK, CR_GROUP, LABEL_REPO_BOUND, REPOS } from '../../src/kube/names';
import { CdktfProject } from '../support/cdktf-project';
import { useKubeApiServer, type KubeApiServer } from '../support/kube-apiserver';
import { installCrd, REPO_CRD } from '../support/kube-crds';
import { kubeExpect, kubeRequest } from '../support/kube-http';

jest.setTimeout(300_000);

// The Repo CRD gains a second served version: a cluster-wide change, so the server is this file's own.
const server = useKubeApiServer({ own: true });
let kube: KubeApiServer;
const projects: CdktfProject[] = [];

type LiveRepo = {
  metadata: { uid: string; labels?: Record<string, string>; annotations?: Record<string, string> };
};
const repoPath = (key: string, version = 'v1alpha1') =>
  `/apis/${CR_GROUP}/${version}/namespaces/${kube.namespace}/${REPOS}/${key}`;
const live = async (key: string): Promise<LiveRepo | undefined> => {
  const answer = await kubeRequest<LiveRepo>(kube.admin, 'GET', repoPath(key));
  return answer.status === 404 ? undefined : answer.body;
};
const words = (text: string) => text.replace(/\s+/g, ' ');

interface Settings {
  readonly deleteOnDestroy: boolean;
  readonly version?: string;
}

/** A project of the app for the Repo `key`, synthesized with `settings`, initialized. */
const projectFor = async (key: string, settings: Settings): Promise<CdktfProject> => {
  const project = new CdktfProject('build/e2e/kube-settings-app.js', 'settings', {
    HOMELAB_KUBECONFIG: kube.kubeconfig,
    HOMELAB_KUBE_NAMESPACE: kube.namespace,
    HOMELAB_KUBE_REPO_KEY: key,
  });
  projects.push(project);
  await synth(project, settings);
  await project.must('init', project.terraform('init', '-no-color'));
  return project;
};

const synth = (project: CdktfProject, { deleteOnDestroy, version }: Settings) =>
  project.must(
    'synth',
    project.synth({
      HOMELAB_KUBE_DELETE_ON_DESTROY: String(deleteOnDestroy),
      HOMELAB_KUBE_REPO_VERSION: version ?? '',
    }),
  );

const apply = (project: CdktfProject, label: string) =>
  project.must(label, project.terraform('apply', '-auto-approve', '-no-color'));

/** Applies `next` over what the project last applied: the plan replaces the lifecycle alone, and the Repo stays. */
const change = async (project: CdktfProject, key: string, next: Settings) => {
  const before = await live(key);
  await synth(project, next);
  const planned = await project.plan('plan (settings changed)');
  expect(planned.code).toBe(2);
  expect(planned.stdout).toMatch(/terraform_data\.site_lifecycle must be replaced/);
  const applied = await apply(project, 'apply (settings changed)');
  const after = await live(key);
  const said = `the apply said:\n${applied.stdout}`;
  expect({ uid: after?.metadata.uid, said }).toEqual({ uid: before?.metadata.uid, said });
  expect({ bound: after?.metadata.labels?.[LABEL_REPO_BOUND], said }).toEqual({ bound: 'true', said });
  expect(after?.metadata.annotations?.[ANNOTATION_REPO_STACK]).toBe('settings');
  expect(words(applied.stdout)).toMatch(/still declared by this stack.*: left as it is/);
  expect((await project.plan('plan (after the change)')).code).toBe(0);
};

beforeAll(async () => {
  kube = server();
  const [served] = REPO_CRD.spec.versions;
  const v1beta1 = { ...served!, name: 'v1beta1', storage: false };
  const definition = { ...REPO_CRD, spec: { ...REPO_CRD.spec, versions: [served!, v1beta1] } };
  await kubeExpect(
    kube.admin,
    'PATCH',
    `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${REPO_CRD.metadata.name}`,
    { spec: { versions: definition.spec.versions } },
    [200],
    'application/merge-patch+json',
  );
  await installCrd(kube.admin, definition);
  for (let tries = 0; (await kubeRequest(kube.admin, 'GET', repoPath('', 'v1beta1'))).status !== 200; tries++) {
    if (tries > 300) throw new Error('v1beta1 of the Repo CRD is not served after 30 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
});

afterAll(() => {
  for (const project of projects) console.log(`kube settings e2e timings (s): ${project.report()}`);
  for (const project of projects) project.cleanup();
});

test('turning deleteOnDestroy off leaves the Repo, and a destroy then unlabels it', async () => {
  const project = await projectFor('off', { deleteOnDestroy: true });
  await apply(project, 'apply (deleteOnDestroy)');
  await change(project, 'off', { deleteOnDestroy: false });
  const destroyed = await project.must('destroy', project.terraform('destroy', '-auto-approve', '-no-color'));
  expect(destroyed.stdout).toMatch(/unlabelled, the Repo and its cache left in place/);
  expect((await live('off'))?.metadata.labels?.[LABEL_REPO_BOUND]).toBeUndefined();
});

test('turning deleteOnDestroy on leaves the Repo marked, and a destroy then deletes it', async () => {
  const project = await projectFor('on', { deleteOnDestroy: false });
  await apply(project, 'apply (no deleteOnDestroy)');
  await change(project, 'on', { deleteOnDestroy: true });
  const destroyed = await project.must('destroy', project.terraform('destroy', '-auto-approve', '-no-color'));
  expect(destroyed.stdout).toMatch(/: deleted/);
  expect(await live('on')).toBeUndefined();
});

test('another version leaves the Repo, and a destroy then deletes it at that version', async () => {
  const project = await projectFor('moved', { deleteOnDestroy: true });
  await apply(project, 'apply (v1alpha1)');
  await change(project, 'moved', { deleteOnDestroy: true, version: 'v1beta1' });
  const destroyed = await project.must('destroy', project.terraform('destroy', '-auto-approve', '-no-color'));
  expect(destroyed.stdout).toMatch(/: deleted/);
  expect(await live('moved')).toBeUndefined();
});

test('a stack applied before the hook said what its configuration declares plans no change: no hook runs', async () => {
  const project = await projectFor('upgraded', { deleteOnDestroy: true });
  // The hook as the version before wrote it: the same lifecycle, without the declared identity.
  const file = join(project.stackDir, 'cdk.tf.json');
  const synthesized = readFileSync(file, 'utf8');
  const earlier = JSON.parse(synthesized);
  const hook = earlier.resource.terraform_data.site_lifecycle.provisioner[0]['local-exec'];
  expect(hook.environment.HOMELAB_DECLARED).toBeDefined();
  delete hook.environment.HOMELAB_DECLARED;
  writeFileSync(file, JSON.stringify(earlier, null, 2));
  await apply(project, 'apply (earlier version)');
  writeFileSync(file, synthesized);
  expect((await project.plan('plan (upgraded)')).code).toBe(0);
  expect((await live('upgraded'))?.metadata.labels?.[LABEL_REPO_BOUND]).toBe('true');
});
