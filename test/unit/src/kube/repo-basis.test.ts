// Unit test of what a plan read of a Repo itself (repo-basis.ts): the fields a restate overwrites change the reading
// and the cache agent's writes (status, resourceVersion) and the fields the stack leaves do not, so a hand edit of
// spec.url after the plan refuses the apply and a status update never does; and the refusal's words.
import { liveRepoOf, type RepoSpec } from '../../../../src/kube/kube-repo';
import { LABEL_REPO_BOUND } from '../../../../src/kube/names';
import { plannedParts, REPO_ABSENT, repoBasis, repoMoved, repoReadingOf } from '../../../../src/kube/repo-basis';

const repo = (over: { spec?: object; metadata?: object; status?: object } = {}) =>
  liveRepoOf({
    metadata: {
      name: 'docs',
      resourceVersion: '41',
      labels: { [LABEL_REPO_BOUND]: 'true' },
      annotations: { 'core.jr2.dev/identity': 'git.example/me/docs' },
      ...over.metadata,
    },
    spec: { url: 'https://git.example/me/docs.git', secretRef: { name: 'clone' }, refreshInterval: '5m', ...over.spec },
    ...(over.status && { status: over.status }),
  });
const planned = repoReadingOf(repo());

test.each([
  ['a new resourceVersion', repo({ metadata: { resourceVersion: '42' } })],
  ['a status the cache agent wrote', repo({ status: { nodes: [{ name: 'n1', fetched: 'now' }] } })],
  ['another spec.refreshInterval (set at create only)', repo({ spec: { refreshInterval: '1h' } })],
  ['a label the stack does not own', repo({ metadata: { labels: { [LABEL_REPO_BOUND]: 'true', team: 'a' } } })],
])('a Repo that got %s reads as the plan read it', (_what, live) => {
  expect(repoReadingOf(live)).toBe(planned);
  expect(repoMoved('Repo jr2/docs', planned, live)).toBeUndefined();
});

test.each([
  ['spec.url edited by hand', repo({ spec: { url: 'https://mirror.example/docs.git' } })],
  ['spec.secretRef removed', repo({ spec: { secretRef: undefined } })],
  ['spec.secretRef without a name', repo({ spec: { secretRef: {} } })],
  ['the bound label removed', repo({ metadata: { labels: {} } })],
  ['the stack annotation set', repo({ metadata: { annotations: { 'core.jr2.dev/stack': 'blue' } } })],
])('a Repo with %s after the plan is refused, nothing written', (_what, live) => {
  expect(repoReadingOf(live)).not.toBe(planned);
  expect(repoMoved('Repo jr2/docs', planned, live)?.message).toBe(
    'Repo jr2/docs cannot be applied as planned: it was changed after the plan read it (spec.url, spec.secretRef, ' +
      'or a label or annotation the stack owns), so this apply would overwrite that change, which the plan did ' +
      'not say; nothing was written: plan again, and that plan reads the Repo as it is now',
  );
});

test('a Repo deleted or created after the plan is refused, saying which', () => {
  expect(repoMoved('Repo jr2/docs', planned, undefined)?.message).toMatch(
    /: it was deleted after the plan read it, so this apply would create it, which the plan did not say; nothing/,
  );
  expect(repoMoved('Repo jr2/docs', REPO_ABSENT, repo())?.message).toMatch(
    /: it was created after the plan read it absent, so this apply would restate spec\.url, .* over what its maker/,
  );
  expect(repoMoved('Repo jr2/docs', REPO_ABSENT, undefined)).toBeUndefined();
});

test("the reading of a url holding a token carries only a digest, never the url's text", () => {
  const reading = repoReadingOf(repo({ spec: { url: 'https://oauth2:S3cretT0ken@git.example/me/docs.git' } }));
  expect(reading).toMatch(/^Repo read [0-9a-f]{16}$/);
});

const spec: RepoSpec = {
  namespace: 'jr2',
  key: 'docs',
  version: 'v1alpha1',
  url: 'https://git.example/me/docs.git',
  identity: 'git.example/me/docs',
  credentials: [{ match: 'git.example/', https: { secret: 'clone' } }],
  refreshInterval: '5m',
};

test("a Repo's basis holds its own reading and its clone Secret's, and splits back into them", () => {
  const basis = repoBasis(spec, repo(), () => true);
  expect(basis).toBe(`${planned}; clone Secret jr2/clone exists`);
  expect(plannedParts(basis)).toEqual({ repo: planned, secret: 'clone Secret jr2/clone exists' });
  expect(repoBasis(spec, undefined, () => false)).toBe('Repo absent; clone Secret jr2/clone is absent');
  expect(repoBasis({ ...spec, credentials: [] }, undefined, () => false)).toBe(REPO_ABSENT);
});

test("a basis that read no Repo (an earlier version's) has no Repo part, and none at all reads nothing", () => {
  expect(plannedParts('clone Secret jr2/clone exists')).toEqual({ secret: 'clone Secret jr2/clone exists' });
  expect(plannedParts(undefined)).toEqual({});
});

test('a token in a live url never reaches the reading: two tokens read alike, another host does not', () => {
  const url = (u: string) => repoReadingOf(repo({ spec: { url: u } }));
  expect(url('https://ghp_first@git.example/me/docs.git')).toBe(url('https://ghp_second@git.example/me/docs.git'));
  expect(url('https://git.example/me/docs.git?private_token=a')).toBe(
    url('https://git.example/me/docs.git?private_token=b'),
  );
  expect(url('https://ghp_first@git.example/me/docs.git')).not.toBe(url('https://ghp_first@mirror.example/docs.git'));
  expect(url('https://ghp_first@git.example/me/docs.git')).not.toBe(planned);
});
