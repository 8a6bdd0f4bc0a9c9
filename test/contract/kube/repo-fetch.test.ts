// Contract test of the KubeRepoFetch kind through its handler CLI against the REAL API server and the test cache
// agent: a fetched verdict is printed and reads in sync for its trigger only; an agent error and an agent that never
// answers are stale warnings with exit 0 within the budget; a Sandbox deleted mid-wait and an unmounted key fail;
// a watch started from an expired resourceVersion re-lists and still hears the answer.
import { kubeDomain } from '../../../handlers/kube/domain';
import { askForFetch, type FetchClient } from '../../../handlers/kube/fetch-ask';
import { systemClock } from '../../../src/core/clock';
import { KubeClient } from '../../../src/kube/client';
import { nodeKubeconfigIo } from '../../../src/kube/connection';
import { loadKubeconfig } from '../../../src/kube/kubeconfig';
import { askedAnnotation, SANDBOXES } from '../../../src/kube/names';
import type { RepoFetchSpec } from '../../../src/kube/kube-repo-fetch';
import { useKubeApiServer, type KubeApiServer } from '../../support/kube-apiserver';
import { CR_VERSION, crPath } from '../../support/kube-crds';
import { kubeExpect } from '../../support/kube-http';
import { invoke } from '../../support/run-handler';
import { type SandboxController, type SandboxObject, startSandboxController } from '../../support/sandbox-controller';

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
const spec = (sandbox: string, key: string, extra: Partial<RepoFetchSpec> = {}): RepoFetchSpec => ({
  namespace: kube.namespace,
  sandbox,
  key,
  version: CR_VERSION,
  trigger: 'v1',
  budgetSeconds: 20,
  ...extra,
});
const createSandbox = (name: string, keys: string[]) =>
  kubeExpect(kube.admin, 'POST', crPath(kube.namespace, SANDBOXES), {
    apiVersion: `core.jr2.dev/${CR_VERSION}`,
    kind: 'Sandbox',
    metadata: { name },
    spec: { repos: keys.map((key) => ({ key })) },
  });
const apply = (s: RepoFetchSpec) => invoke(kubeDomain(), 'kube-repo-fetch', 'apply', target(), s);
const read = async (s: RepoFetchSpec) => (await invoke(kubeDomain(), 'kube-repo-fetch', 'read', target(), s)).result;
const timed = async <T>(work: Promise<T>) => {
  const start = Date.now();
  const value = await work;
  return { value, ms: Date.now() - start };
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const STAMP = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ';

test('a fetch the agent answers prints "fetched at T" and reads in sync until the trigger changes', async () => {
  agent.answer({ fetched: true, delayMs: 300 }, 'site');
  await createSandbox('warm', ['site', 'docs']);
  const run = await apply(spec('warm', 'site'));
  expect(run.code).toBe(0);
  expect(run.stderr).toMatch(new RegExp(`Sandbox ${kube.namespace}/warm: repo "site" fetched at ${STAMP} \\(after`));
  expect(agent.asks.filter((a) => a.sandbox === 'warm')).toHaveLength(1);
  expect(await read(spec('warm', 'site'))).toMatchObject({ in_sync: 'true', summary: 'in sync' });
  expect((await read(spec('warm', 'site', { trigger: 'v2' })))?.summary).toMatch(
    new RegExp(`^the trigger changed since the last ask \\(${STAMP}\\)$`),
  );
});

test('an agent error is a stale warning in git’s words as of the last fetch, and the apply exits 0', async () => {
  agent.answer({ fetched: true }, 'flaky');
  await createSandbox('flaky', ['flaky']);
  expect((await apply(spec('flaky', 'flaky'))).code).toBe(0);
  const landed = (await kubeExpect<SandboxObject>(kube.admin, 'GET', crPath(kube.namespace, SANDBOXES, 'flaky'))).status
    ?.repos?.[0]?.fetched;
  await sleep(1100); // the next ask's second must follow the landing's, or the landing answers it (same bar)
  agent.answer({ error: 'fatal: Could not read from remote repository.', delayMs: 200 }, 'flaky');
  const run = await apply(spec('flaky', 'flaky', { trigger: 'v2' }));
  expect(run.code).toBe(0);
  expect(run.stderr).toContain(
    `Warning: Sandbox ${kube.namespace}/flaky: repo "flaky" is stale as of ${landed}: ` +
      'fatal: Could not read from remote repository. (after',
  );
  expect((await read(spec('flaky', 'flaky', { trigger: 'v2' })))?.summary).toMatch(
    new RegExp(`is stale as of ${landed}: fatal: Could not read from remote repository. \\(asked at ${STAMP}\\)$`),
  );
});

test('an agent that never answers ends the apply within its budget as stale, with exit 0', async () => {
  agent.answer({ never: true }, 'silent');
  await createSandbox('quiet', ['silent']);
  const { value: run, ms } = await timed(apply(spec('quiet', 'silent', { budgetSeconds: 3 })));
  expect(run.code).toBe(0);
  expect(run.stderr).toContain(
    `Warning: Sandbox ${kube.namespace}/quiet: repo "silent" is stale as of an unknown time: ` +
      'no answer from the node cache within 3 s',
  );
  expect(ms).toBeGreaterThanOrEqual(3000);
  expect(ms).toBeLessThan(3000 + 4000); // one GET, one PATCH and a list beyond the budget
});

test('a Sandbox deleted mid-wait fails the apply: "Sandbox x is gone"', async () => {
  agent.answer({ never: true }, 'silent');
  await createSandbox('doomed', ['silent']);
  const pending = timed(apply(spec('doomed', 'silent', { budgetSeconds: 30 })));
  for (let i = 0; i < 100 && !agent.asks.some((a) => a.sandbox === 'doomed'); i++) await sleep(100);
  await kubeExpect(kube.admin, 'DELETE', crPath(kube.namespace, SANDBOXES, 'doomed'));
  const { value: run, ms } = await pending;
  expect(run.code).toBe(1);
  expect(run.stderr).toContain(`kube-repo-fetch apply: Sandbox ${kube.namespace}/doomed is gone: it was deleted`);
  expect(ms).toBeLessThan(15_000);
});

test('a key the Sandbox does not mount fails naming it, and no ask is raised', async () => {
  await createSandbox('narrow', ['docs']);
  const run = await apply(spec('narrow', 'site'));
  expect(run.code).toBe(1);
  expect(run.stderr).toContain(
    `Fetch refused: Sandbox ${kube.namespace}/narrow does not mount repo "site" (it mounts "docs")`,
  );
  const live = await kubeExpect<SandboxObject>(kube.admin, 'GET', crPath(kube.namespace, SANDBOXES, 'narrow'));
  expect(live.metadata.annotations ?? {}).not.toHaveProperty([askedAnnotation('site')]);
  expect((await read(spec('narrow', 'site')))?.summary).toContain('does not mount repo "site"');
});

test('a fetch whose watch starts from an expired resourceVersion re-lists and still reports fetched', async () => {
  agent.answer({ fetched: true, delayMs: 1500 }, 'late');
  await createSandbox('expiring', ['late']);
  const client = new KubeClient(loadKubeconfig({ kubeconfig: kube.kubeconfig }, nodeKubeconfigIo()));
  let lists = 0;
  // The first list claims a long-compacted version: the real server then expires the watch (200, ERROR 410).
  const stale: FetchClient = {
    connection: client.connection,
    call: client.call.bind(client),
    error: client.error.bind(client),
    list: async (path, timeoutMs) => ({
      ...(await client.list(path, timeoutMs)),
      ...(lists++ === 0 ? { resourceVersion: '1' } : {}),
    }),
  };
  try {
    const context = { env: {}, log: () => undefined, clock: systemClock };
    const answer = await askForFetch(stale, 'test', spec('expiring', 'late'), context);
    expect(answer).toEqual({ fetched: expect.stringMatching(new RegExp(`^${STAMP}$`)) });
    expect(lists).toBe(2);
  } finally {
    client.close();
  }
});
