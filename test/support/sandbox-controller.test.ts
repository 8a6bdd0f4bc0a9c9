// The test cache agent against the real API server: it must answer asks the way the seed's operator does (status
// entries scoped to the ask), stay silent when told to, and keep answering after its watch expires (410 re-list).
import { askedAnnotation, SANDBOXES } from '../../src/kube/names';
import { useKubeApiServer } from './kube-apiserver';
import { crPath } from './kube-crds';
import { kubeExpect } from './kube-http';
import {
  startSandboxController,
  type SandboxController,
  type SandboxObject,
  type SandboxRepoStatus,
} from './sandbox-controller';

jest.setTimeout(120_000);

const kube = useKubeApiServer();
const WAIT_MS = 20_000;
/** A distinct stamp per ask, in the past, to the second. */
let secondsAgo = 1000;
const nextStamp = () => new Date(Date.now() - secondsAgo-- * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

const sandbox = async (name: string, keys: string[]) => {
  const body = {
    apiVersion: 'core.jr2.dev/v1alpha1',
    kind: 'Sandbox',
    metadata: { name },
    spec: { repos: keys.map((key) => ({ key })) },
  };
  await kubeExpect(kube().admin, 'POST', crPath(kube().namespace, SANDBOXES), body);
};
const ask = async (name: string, stamps: Record<string, string>) => {
  const annotations = Object.fromEntries(Object.entries(stamps).map(([key, at]) => [askedAnnotation(key), at]));
  const patch = { metadata: { annotations } };
  await kubeExpect(
    kube().admin,
    'PATCH',
    crPath(kube().namespace, SANDBOXES, name),
    patch,
    [200],
    'application/merge-patch+json',
  );
};
/** Polls the Sandbox until `key`'s entry answers `asked`; bounded. */
const entryFor = async (name: string, key: string, asked: string): Promise<SandboxRepoStatus> => {
  for (const deadline = Date.now() + WAIT_MS; ; await new Promise((r) => setTimeout(r, 100))) {
    const item = await kubeExpect<SandboxObject>(kube().admin, 'GET', crPath(kube().namespace, SANDBOXES, name));
    const entry = (item.status?.repos ?? []).find((r: SandboxRepoStatus) => r.key === key && r.asked === asked);
    if (entry) return entry;
    if (Date.now() > deadline)
      throw new Error(`no answer for ${name}/${key} asked ${asked}: ${JSON.stringify(item.status)}`);
  }
};
const statusOf = async (name: string) =>
  (await kubeExpect<SandboxObject>(kube().admin, 'GET', crPath(kube().namespace, SANDBOXES, name))).status?.repos ?? [];

describe('the test cache agent', () => {
  let agent: SandboxController;
  beforeAll(async () => {
    agent = await startSandboxController(kube().admin, kube().namespace);
  });
  afterAll(() => agent?.stop());

  test('answers an ask with a fetch at or after it, scoped to that ask', async () => {
    await sandbox('fetches', ['site']);
    const asked = nextStamp();
    await ask('fetches', { site: asked });
    const entry = await entryFor('fetches', 'site', asked);
    expect(entry.error).toBeUndefined();
    expect(Date.parse(entry.fetched!)).toBeGreaterThanOrEqual(Date.parse(asked));
  });

  test("answers with git's words when told to fail, keeping the time of the last fetch", async () => {
    await sandbox('fails', ['site']);
    const first = nextStamp();
    await ask('fails', { site: first });
    const landed = await entryFor('fails', 'site', first);
    agent.answer({ error: 'fatal: Could not read from remote repository.' }, 'site');
    const second = nextStamp();
    await ask('fails', { site: second });
    expect(await entryFor('fails', 'site', second)).toMatchObject({
      error: 'fatal: Could not read from remote repository.',
      fetched: landed.fetched,
    });
    agent.answer({ fetched: true }, 'site');
  });

  test('stays silent for a key told never, and ignores a key the Sandbox does not mount', async () => {
    await sandbox('silent', ['site', 'docs']);
    agent.answer({ never: true }, 'docs');
    const asked = nextStamp();
    await ask('silent', { docs: asked, site: asked, ghost: asked });
    await entryFor('silent', 'site', asked); // the same event carried all three asks
    expect((await statusOf('silent')).map((r: SandboxRepoStatus) => r.key)).toEqual(['site']);
    expect(
      agent.asks
        .filter((a) => a.sandbox === 'silent')
        .map((a) => a.key)
        .sort(),
    ).toEqual(['docs', 'site']);
  });
});

test('the agent re-lists when its watch answers 410 and keeps answering', async () => {
  const agent = await startSandboxController(kube().admin, kube().namespace, { firstResourceVersion: '1' });
  try {
    await sandbox('relists', ['site']);
    const asked = nextStamp();
    await ask('relists', { site: asked });
    await entryFor('relists', 'site', asked);
    expect(agent.lists).toBeGreaterThanOrEqual(2);
  } finally {
    await agent.stop();
  }
});
