/**
 * Two stacks on one cluster, with real terraform (or tofu) on examples/kube.ts against the REAL kube-apiserver and
 * the test cache agent (issue 27 items 3 and 4): the first stack states two Repos and asks for a fetch of `site`
 * into a Sandbox; a second folder of the same app under another stack id (`cdktf-homelab:stackId`) reads both Repos
 * as the first stack's, naming both stacks (the site Repo even with `adopt: true`), its apply refuses them and
 * changes nothing, its fetch ask for the same trigger is the first one's (in sync, never asked again), and its
 * destroy leaves both Repos. The first stack's plan stays clean throughout.
 */
import { ANNOTATION_REPO_STACK } from '../../src/kube/names';
import { CdktfProject } from '../support/cdktf-project';
import { useKubeApiServer, type KubeApiServer } from '../support/kube-apiserver';
import { CR_VERSION, crPath } from '../support/kube-crds';
import { kubeExpect } from '../support/kube-http';
import { type SandboxController, startSandboxController } from '../support/sandbox-controller';

jest.setTimeout(300_000);

const server = useKubeApiServer();
let kube: KubeApiServer;
let agent: SandboxController;
let first: CdktfProject;
let second: CdktfProject;

type LiveRepo = {
  metadata: { resourceVersion: string; labels?: Record<string, string>; annotations?: Record<string, string> };
};
const live = (key: string) => kubeExpect<LiveRepo>(kube.admin, 'GET', crPath(kube.namespace, 'repos', key));
const words = (text: string) => text.replace(/\s+/g, ' ');
const KEYS = ['site', 'docs'];

beforeAll(async () => {
  kube = server();
  await kubeExpect(kube.admin, 'POST', `/api/v1/namespaces/${kube.namespace}/secrets`, {
    metadata: { name: 'clone-docs' },
    stringData: { username: 'me', password: 'e2e-clone-password' },
  });
  agent = await startSandboxController(kube.admin, kube.namespace);
  agent.answer({ fetched: true, delayMs: 300 }, 'site');
  await kubeExpect(kube.admin, 'POST', crPath(kube.namespace, 'sandboxes'), {
    apiVersion: `core.jr2.dev/${CR_VERSION}`,
    kind: 'Sandbox',
    metadata: { name: 'box' },
    spec: { repos: [{ key: 'site' }] },
  });
  const env = {
    HOMELAB_KUBECONFIG: kube.kubeconfig,
    HOMELAB_KUBE_NAMESPACE: kube.namespace,
    HOMELAB_KUBE_FETCH_SANDBOX: 'box',
    HOMELAB_KUBE_FETCH_TRIGGER: 'v1',
    HOMELAB_KUBE_FETCH_BUDGET: '20',
  };
  first = new CdktfProject('build/examples/kube.js', 'kube', env);
  second = new CdktfProject('build/examples/kube.js', 'kube', env);
  await first.must('synth', first.synth());
  await first.must('init', first.terraform('init', '-no-color'));
  await second.must('synth (second)', second.synth({ CDKTF_CONTEXT_JSON: '{"cdktf-homelab:stackId":"second"}' }));
  await second.must('init (second)', second.terraform('init', '-no-color'));
});

afterAll(async () => {
  await agent?.stop();
  console.log(`kube stacks e2e timings (s): first ${first?.report()}; second ${second?.report()}`);
  first?.cleanup();
  second?.cleanup();
});

test('the first stack states both Repos, naming itself, and asks for the fetch once', async () => {
  await first.must('apply', first.terraform('apply', '-auto-approve', '-no-color'));
  for (const key of KEYS) expect((await live(key)).metadata.annotations?.[ANNOTATION_REPO_STACK]).toBe('kube');
  expect(agent.asks.filter((ask) => ask.sandbox === 'box')).toHaveLength(1);
  expect((await first.plan('plan (clean)')).code).toBe(0);
});

test("a second stack reads both Repos as the first's, its apply refuses them, and it never asks again", async () => {
  const before = await Promise.all(KEYS.map(async (key) => (await live(key)).metadata.resourceVersion));
  const planned = await second.plan('plan (second)');
  expect(planned.code).toBe(2);
  for (const key of KEYS) {
    expect(words(planned.stdout)).toMatch(
      new RegExp(`- ${key}: exists on Kubernetes cluster \\S+, marked by stack "kube", not this stack "second"`),
    );
  }
  expect(words(planned.stdout)).not.toMatch(/- warm-site:/);
  const applied = await second.terraform('apply', '-auto-approve', '-no-color');
  expect(applied.code).toBe(1);
  const said = words(applied.stdout + applied.stderr);
  for (const key of KEYS) expect(said).toMatch(new RegExp(`${key}: not applied: exists on .*marked by stack "kube"`));
  expect(await Promise.all(KEYS.map(async (key) => (await live(key)).metadata.resourceVersion))).toEqual(before);
  expect(agent.asks.filter((ask) => ask.sandbox === 'box')).toHaveLength(1);
});

test("the second stack's destroy leaves both Repos; the first stack's plan stays clean", async () => {
  const destroyed = await second.must('destroy (second)', second.terraform('destroy', '-auto-approve', '-no-color'));
  const left = /marked by stack "kube", not this stack "second": left as it is/g;
  expect(words(destroyed.stdout + destroyed.stderr).match(left)).toHaveLength(2);
  for (const key of KEYS) expect((await live(key)).metadata.annotations?.[ANNOTATION_REPO_STACK]).toBe('kube');
  expect((await first.plan('plan (first, after the second)')).code).toBe(0);
});
