/**
 * A saved plan of an https KubeRepo applied after its clone Secret was deleted, or after its spec.url was edited by
 * hand, with real terraform (or tofu) on test/e2e/kube-settings-app.ts against the REAL kube-apiserver. The apply
 * dropped spec.secretRef, or put the url back, which the plan had not named: now the plan's reading reaches the
 * handler through the apply resource's input, and the apply refuses the Repo without writing; the next plan names
 * the change, and its apply makes it.
 */
import { CR_GROUP, LABEL_REPO_BOUND, REPOS } from '../../src/kube/names';
import { CdktfProject } from '../support/cdktf-project';
import { useKubeApiServer, type KubeApiServer } from '../support/kube-apiserver';
import { kubeExpect } from '../support/kube-http';

jest.setTimeout(300_000);

const server = useKubeApiServer();
let kube: KubeApiServer;
const projects: CdktfProject[] = [];
beforeAll(() => (kube = server()));
afterAll(() => {
  for (const project of projects) {
    console.log(`kube race e2e timings (s): ${project.report()}`);
    project.cleanup();
  }
});

type LiveRepo = { metadata: { resourceVersion: string }; spec: { url: string; secretRef?: { name: string } } };
const repoPath = (key = 'race') => `/apis/${CR_GROUP}/v1alpha1/namespaces/${kube.namespace}/${REPOS}/${key}`;
const secretPath = (name = '') => `/api/v1/namespaces/${kube.namespace}/secrets${name === '' ? '' : `/${name}`}`;
const live = (key?: string) => kubeExpect<LiveRepo>(kube.admin, 'GET', repoPath(key));
const patch = (key: string, body: object) =>
  kubeExpect(kube.admin, 'PATCH', repoPath(key), body, [200], 'application/merge-patch+json');
const appliedProject = async (key: string, env: NodeJS.ProcessEnv = {}) => {
  const project = new CdktfProject('build/e2e/kube-settings-app.js', 'settings', {
    HOMELAB_KUBECONFIG: kube.kubeconfig,
    HOMELAB_KUBE_NAMESPACE: kube.namespace,
    HOMELAB_KUBE_REPO_KEY: key,
    ...env,
  });
  projects.push(project);
  await project.must('synth', project.synth());
  await project.must('init', project.terraform('init', '-no-color'));
  await project.must('apply', project.terraform('apply', '-auto-approve', '-no-color'));
  return project;
};
const words = (text: string) => text.replace(/\s+/g, ' ');

test('a saved plan applied after the clone Secret was deleted refuses the Repo and writes nothing', async () => {
  await kubeExpect(kube.admin, 'POST', secretPath(), { metadata: { name: 'race-clone' }, stringData: { p: 'p' } });
  const project = await appliedProject('race', { HOMELAB_KUBE_CLONE_SECRET: 'race-clone' });
  expect((await live()).spec.secretRef).toEqual({ name: 'race-clone' });
  await patch('race', { metadata: { labels: { [LABEL_REPO_BOUND]: null } } });
  const planned = await project.plan('plan (label removed)', '-out=saved.tfplan');
  expect(planned.code).toBe(2);
  expect(words(planned.stdout)).toContain(`label ${LABEL_REPO_BOUND} is unset, want "true"`);
  expect(planned.stdout).not.toContain('spec.secretRef');
  const before = await live();
  await kubeExpect(kube.admin, 'DELETE', secretPath('race-clone'), undefined, [200, 202]);
  const applied = await project.terraform('apply', '-no-color', 'saved.tfplan');
  expect(applied.code).toBe(1);
  expect(words(applied.stdout + applied.stderr)).toContain(
    `site: not applied: Repo ${kube.namespace}/race cannot be applied as planned: its clone Secret ` +
      `${kube.namespace}/race-clone was deleted after the plan read it, so this apply would write the Repo without ` +
      'spec.secretRef, which the plan did not say; nothing was written',
  );
  const after = await live();
  expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  expect(after.spec.secretRef).toEqual({ name: 'race-clone' });
  const next = await project.plan('plan (Secret gone)');
  expect(next.code).toBe(2);
  expect(words(next.stdout)).toContain('spec.secretRef is "race-clone", want unset');
  await project.must('apply (as planned)', project.terraform('apply', '-auto-approve', '-no-color'));
  expect(await live()).not.toHaveProperty('spec.secretRef');
  expect((await project.plan('plan (after)')).code).toBe(0);
  await project.must('destroy', project.terraform('destroy', '-auto-approve', '-no-color'));
});

test("a saved plan applied after the Repo's spec.url was edited by hand refuses it and keeps the edit", async () => {
  const project = await appliedProject('edit');
  await patch('edit', { metadata: { labels: { [LABEL_REPO_BOUND]: null } } });
  const planned = await project.plan('plan (label removed)', '-out=saved.tfplan');
  expect(planned.code).toBe(2);
  expect(planned.stdout).not.toContain('spec.url');
  await patch('edit', { spec: { url: 'https://mirror.example/edit.git' } });
  const before = await live('edit');
  const applied = await project.terraform('apply', '-no-color', 'saved.tfplan');
  expect(applied.code).toBe(1);
  expect(words(applied.stdout + applied.stderr)).toContain(
    `site: not applied: Repo ${kube.namespace}/edit cannot be applied as planned: it was changed after the plan ` +
      'read it (spec.url, spec.secretRef, or a label or annotation the stack owns), so this apply would overwrite ' +
      'that change, which the plan did not say; nothing was written: plan again',
  );
  expect((await live('edit')).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  const next = await project.plan('plan (url edited)');
  expect(words(next.stdout)).toContain('spec.url is "https://mirror.example/edit.git"');
  await project.must('apply (as planned)', project.terraform('apply', '-auto-approve', '-no-color'));
  expect((await live('edit')).spec.url).toBe('https://git.example/me/edit.git');
  expect((await project.plan('plan (after)')).code).toBe(0);
  await project.must('destroy', project.terraform('destroy', '-auto-approve', '-no-color'));
});
