// Contract test of fetch asks from two stacks on one Sandbox and key, against the REAL API server and the test cache
// agent (issue 27 item 4: both stacks asked, two merge patches per apply, 6 of 6 runs). The ask's record names the
// stack that raised it; an ask for the same trigger is shared (one merge patch, whichever stack comes second, even
// raised at once), and one for another trigger than another stack's last is named in the plan and refused by the
// apply unless takeOver. A record an earlier version wrote (no stack) is anyone's, as before.
import { kubeDomain } from '../../../handlers/kube/domain';
import { askForFetch, type FetchClient } from '../../../handlers/kube/fetch-ask';
import { systemClock } from '../../../src/core/clock';
import { KubeClient } from '../../../src/kube/client';
import { nodeKubeconfigIo } from '../../../src/kube/connection';
import { loadKubeconfig } from '../../../src/kube/kubeconfig';
import { type RepoFetchSpec, triggerAnnotation } from '../../../src/kube/kube-repo-fetch';
import { SANDBOXES } from '../../../src/kube/names';
import { useKubeApiServer, type KubeApiServer } from '../../support/kube-apiserver';
import { CR_VERSION, crPath } from '../../support/kube-crds';
import { kubeExpect } from '../../support/kube-http';
import { type SandboxController, type SandboxObject, startSandboxController } from '../../support/sandbox-controller';
import { applyAs, readAs } from './stack-runs';

jest.setTimeout(60_000);

const server = useKubeApiServer();
let kube: KubeApiServer;
let agent: SandboxController;
beforeAll(async () => {
  kube = server();
  agent = await startSandboxController(kube.admin, kube.namespace);
});
afterAll(() => agent?.stop());

const target = () => ({ name: 'test', kubeconfig: kube.kubeconfig });
const spec = (sandbox: string, trigger = 'v1'): RepoFetchSpec => ({
  namespace: kube.namespace,
  sandbox,
  key: 'site',
  version: CR_VERSION,
  trigger,
  budgetSeconds: 20,
});
const ask = (sandbox: string, trigger?: string, takeOver?: boolean) => ({
  kind: 'kube-repo-fetch',
  spec: spec(sandbox, trigger),
  ...(takeOver ? { takeOver } : {}),
});
const createSandbox = (name: string) =>
  kubeExpect(kube.admin, 'POST', crPath(kube.namespace, SANDBOXES), {
    apiVersion: `core.jr2.dev/${CR_VERSION}`,
    kind: 'Sandbox',
    metadata: { name },
    spec: { repos: [{ key: 'site' }] },
  });
const record = async (name: string) =>
  (await kubeExpect<SandboxObject>(kube.admin, 'GET', crPath(kube.namespace, SANDBOXES, name))).metadata.annotations?.[
    triggerAnnotation('site')
  ];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A client that counts the merge patches the API server accepted. */
const countingClient = () => {
  const client = new KubeClient(loadKubeconfig({ kubeconfig: kube.kubeconfig }, nodeKubeconfigIo()));
  const counted = { patches: 0 };
  const fetchClient: FetchClient = {
    connection: client.connection,
    list: client.list.bind(client),
    error: client.error.bind(client),
    call: async (method, path, options) => {
      const answer = await client.call(method, path, options);
      if (method === 'PATCH' && answer.status === 200) counted.patches++;
      return answer;
    },
  };
  return { client, fetchClient, counted };
};

test('two stacks asking for one trigger at once make one merge patch and share its verdict', async () => {
  agent.answer({ fetched: true, delayMs: 1500 }, 'site');
  await createSandbox('both');
  const blue = countingClient();
  const green = countingClient();
  const lines: string[] = [];
  const context = (stack: string) => ({ env: {}, log: (l: string) => lines.push(l), clock: systemClock, stack });
  try {
    const answers = await Promise.all([
      askForFetch(blue.fetchClient, 'test', spec('both'), context('blue')),
      askForFetch(green.fetchClient, 'test', spec('both'), context('green')),
    ]);
    expect(blue.counted.patches + green.counted.patches).toBe(1);
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0]).toHaveProperty('fetched');
    expect(lines.join('\n')).toMatch(/for this trigger: sharing that ask/);
  } finally {
    blue.client.close();
    green.client.close();
  }
});

test("a second stack's apply while the first's ask is pending waits on it: one ask, both in sync", async () => {
  agent.answer({ fetched: true, delayMs: 3000 }, 'site');
  await createSandbox('pending');
  const first = applyAs(kubeDomain(), target(), 'blue', { f: ask('pending') });
  for (let i = 0; i < 100 && !agent.asks.some((a) => a.sandbox === 'pending'); i++) await sleep(100);
  await sleep(1100); // a second ask would carry a later second, so the agent would see it as another ask
  const second = await applyAs(kubeDomain(), target(), 'green', { f: ask('pending') });
  expect(second.code).toBe(0);
  expect(second.stderr).toMatch(/repo "site" was asked at \S+ by stack "blue" for this trigger: sharing that ask/);
  expect((await first).code).toBe(0);
  expect(agent.asks.filter((a) => a.sandbox === 'pending')).toHaveLength(1);
  expect((await readAs(kubeDomain(), target(), 'green', { f: ask('pending') })).result['f.in_sync']).toBe('true');
  expect((await readAs(kubeDomain(), target(), 'blue', { f: ask('pending') })).result['f.in_sync']).toBe('true');
});

test("another trigger than another stack's last ask: named by the plan, refused, taken with takeOver", async () => {
  agent.answer({ fetched: true, delayMs: 200 }, 'site');
  await createSandbox('apart');
  expect((await applyAs(kubeDomain(), target(), 'blue', { f: ask('apart', 'v1') })).code).toBe(0);
  expect(await record('apart')).toMatch(/^\S+ [0-9a-f]{16} blue$/);
  const read = await readAs(kubeDomain(), target(), 'green', { f: ask('apart', 'v2') });
  expect(read.result['f.in_sync']).toBe('false');
  expect(read.result['f.summary']).toMatch(
    /^exists on Kubernetes cluster test, marked by stack "blue", not this stack "green": the apply will refuse it/,
  );
  const refused = await applyAs(kubeDomain(), target(), 'green', { f: ask('apart', 'v2') });
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toContain('f: not applied: exists on Kubernetes cluster test, marked by stack "blue"');
  expect(agent.asks.filter((a) => a.sandbox === 'apart')).toHaveLength(1);
  await sleep(1100); // the taken ask's second must follow the first's
  expect((await applyAs(kubeDomain(), target(), 'green', { f: ask('apart', 'v2', true) })).code).toBe(0);
  expect(await record('apart')).toMatch(/^\S+ [0-9a-f]{16} green$/);
  expect(agent.asks.filter((a) => a.sandbox === 'apart')).toHaveLength(2);
});

test("an earlier version's record (no stack) is not another stack's: the ask is raised, naming the stack", async () => {
  agent.answer({ fetched: true, delayMs: 200 }, 'site');
  await createSandbox('older');
  const path = crPath(kube.namespace, SANDBOXES, 'older');
  const old = { [triggerAnnotation('site')]: '2020-01-01T00:00:00Z 0123456789abcdef' };
  await kubeExpect(
    kube.admin,
    'PATCH',
    path,
    { metadata: { annotations: old } },
    [200],
    'application/merge-patch+json',
  );
  const read = await readAs(kubeDomain(), target(), 'green', { f: ask('older') });
  expect(read.result['f.summary']).toMatch(/^the trigger changed since the last ask \(2020-01-01T00:00:00Z\)$/);
  expect((await applyAs(kubeDomain(), target(), 'green', { f: ask('older') })).code).toBe(0);
  expect(await record('older')).toMatch(/^\S+ [0-9a-f]{16} green$/);
});
