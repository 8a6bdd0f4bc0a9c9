// Unit test of the apply's restate of a Repo its plan read present (repo-write.ts), on a scripted API: a write that
// lands between the apply's check and its patch (the cache agent's status, every few seconds on a busy Repo) fails
// the patch with 409 Conflict, and the restate checks again: it patches when what the stack owns still reads as
// planned, and refuses, writing nothing more, when that write was a hand edit of spec.url.
import { writeRepo } from '../../../../handlers/kube/repo-write';
import type { KubeSession } from '../../../../handlers/kube/session';
import type { HttpAnswer } from '../../../../src/core/http/request';
import { type KubeAnswer, KubeClient, type KubeObject } from '../../../../src/kube/client';
import type { RepoSpec } from '../../../../src/kube/kube-repo';
import { LABEL_REPO_BOUND } from '../../../../src/kube/names';
import { repoReadingOf } from '../../../../src/kube/repo-basis';
import { liveRepoOf } from '../../../../src/kube/kube-repo';
import { systemClock } from '../../../../src/core/clock';

const spec: RepoSpec = {
  namespace: 'jr2',
  key: 'site',
  version: 'v1alpha1',
  url: 'https://git.example/me/site.git',
  identity: 'git.example/me/site',
  credentials: [],
  refreshInterval: '5m',
};
const repo = (resourceVersion: string, url = spec.url) =>
  ({
    metadata: { name: 'site', resourceVersion, annotations: { 'core.jr2.dev/identity': spec.identity } },
    spec: { url, refreshInterval: '5m' },
  }) as KubeObject;
const raw = (status: number, body: unknown): HttpAnswer => ({
  status,
  reason: '',
  headers: {},
  body: Buffer.from(JSON.stringify(body)),
});
const conflict = raw(409, { kind: 'Status', code: 409, reason: 'Conflict', message: 'the object has been modified' });

/** A client whose GETs answer `reads` in turn and whose PATCHes answer `patches` in turn, recording each patch. */
const scripted = (reads: readonly KubeObject[], patches: readonly HttpAnswer[]) => {
  const sent: unknown[] = [];
  const client = Object.create(KubeClient.prototype) as KubeClient;
  Object.assign(client, {
    connection: { server: 'https://k:6443', origin: 'https://k:6443' },
    getOptional: async () => reads[Math.min(sent.length, reads.length - 1)],
    send: async (method: string, _path: string, body: unknown): Promise<KubeAnswer> => {
      expect(method).toBe('PATCH');
      const answer = patches[sent.length]!;
      sent.push(body);
      return { status: answer.status, body: JSON.parse(answer.body.toString()), raw: answer };
    },
  });
  return { session: { client, cluster: 'Kubernetes cluster home' } as KubeSession, sent };
};
const context = (log: string[]) => ({ env: {}, log: (l: string) => log.push(l), clock: systemClock });
const planned = repoReadingOf(liveRepoOf(repo('1')));
const resourceVersions = (sent: unknown[]) =>
  sent.map((body) => (body as { metadata: { resourceVersion?: string } }).metadata.resourceVersion);

test("a status write between the apply's check and its patch makes it check again and patch", async () => {
  const { session, sent } = scripted([repo('1'), repo('2')], [conflict, raw(200, repo('3'))]);
  const log: string[] = [];
  await writeRepo(session, spec, undefined, planned, context(log));
  expect(resourceVersions(sent)).toEqual(['1', '2']);
  expect(sent[1]).toMatchObject({ metadata: { labels: { [LABEL_REPO_BOUND]: 'true' } }, spec: { url: spec.url } });
  expect(log).toContain('Repo jr2/site: changed since its read (409 Conflict): reading it again');
  // The restate is said once, not once a try: the apply's output reads as one restate of one Repo.
  expect(log.filter((line) => line.includes('exists, restating'))).toHaveLength(1);
});

test("a hand edit between the apply's check and its patch is refused on the check after the conflict", async () => {
  const { session, sent } = scripted([repo('1'), repo('2', 'https://mirror.example/site.git')], [conflict]);
  await expect(writeRepo(session, spec, undefined, planned, context([]))).rejects.toThrow(
    /^Repo jr2\/site cannot be applied as planned: it was changed after the plan read it .*nothing was written/,
  );
  expect(sent).toHaveLength(1);
});

test('a Repo that conflicts at every try is refused after five, saying nothing was written', async () => {
  const reads = ['1', '2', '3', '4', '5'].map((version) => repo(version));
  const { session, sent } = scripted(reads, Array(5).fill(conflict));
  await expect(writeRepo(session, spec, undefined, planned, context([]))).rejects.toThrow(
    /it changed between each of 5 reads and the restate after it \(409 Conflict each time\); nothing was written/,
  );
  expect(sent).toHaveLength(5);
});
