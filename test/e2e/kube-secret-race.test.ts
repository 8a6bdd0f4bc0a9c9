/**
 * A saved plan of an https KubeRepo applied after its clone Secret was deleted, with real terraform (or tofu) on
 * test/e2e/kube-settings-app.ts against the REAL kube-apiserver. The apply dropped spec.secretRef, which the plan had
 * not named: now the plan's reading of the Secret reaches the handler through the apply resource's input, and the
 * apply refuses the Repo without writing; the next plan names the change, and its apply makes it.
 */
import { CR_GROUP, LABEL_REPO_BOUND, REPOS } from '../../src/kube/names';
import { CdktfProject } from '../support/cdktf-project';
import { useKubeApiServer, type KubeApiServer } from '../support/kube-apiserver';
import { kubeExpect } from '../support/kube-http';

jest.setTimeout(300_000);

const server = useKubeApiServer();
let kube: KubeApiServer;
let project: CdktfProject;
beforeAll(() => (kube = server()));
afterAll(() => {
  console.log(`kube secret race e2e timings (s): ${project.report()}`);
  project.cleanup();
});

type LiveRepo = { metadata: { resourceVersion: string }; spec: { secretRef?: { name: string } } };
const repoPath = () => `/apis/${CR_GROUP}/v1alpha1/namespaces/${kube.namespace}/${REPOS}/race`;
const secretPath = (name = '') => `/api/v1/namespaces/${kube.namespace}/secrets${name === '' ? '' : `/${name}`}`;
const live = () => kubeExpect<LiveRepo>(kube.admin, 'GET', repoPath());
const words = (text: string) => text.replace(/\s+/g, ' ');

test('a saved plan applied after the clone Secret was deleted refuses the Repo and writes nothing', async () => {
  await kubeExpect(kube.admin, 'POST', secretPath(), { metadata: { name: 'race-clone' }, stringData: { p: 'p' } });
  project = new CdktfProject('build/e2e/kube-settings-app.js', 'settings', {
    HOMELAB_KUBECONFIG: kube.kubeconfig,
    HOMELAB_KUBE_NAMESPACE: kube.namespace,
    HOMELAB_KUBE_REPO_KEY: 'race',
    HOMELAB_KUBE_CLONE_SECRET: 'race-clone',
  });
  await project.must('synth', project.synth());
  await project.must('init', project.terraform('init', '-no-color'));
  await project.must('apply', project.terraform('apply', '-auto-approve', '-no-color'));
  expect((await live()).spec.secretRef).toEqual({ name: 'race-clone' });
  const patch = { metadata: { labels: { [LABEL_REPO_BOUND]: null } } };
  await kubeExpect(kube.admin, 'PATCH', repoPath(), patch, [200], 'application/merge-patch+json');
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
