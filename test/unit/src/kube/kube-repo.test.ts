// Unit test of the Repo's pure core: credentials matched by the longest prefix of the identity, the url's scheme
// picking the ssh deploy key or the https clone Secret (only when it exists), and the drift of the owned fields.
import { cloneUrlProblem } from '../../../../src/kube/clone-url';
import { LABEL_REPO_BOUND } from '../../../../src/kube/names';
import {
  credentialSecretFor,
  diffRepo,
  intervalLeft,
  liveRepoOf,
  matchCredential,
  type RepoSpec,
  schemeOf,
  terminating,
  wantedSecretRef,
} from '../../../../src/kube/kube-repo';

const creds = [
  { match: 'git.example/', ssh: { secret: 'org-key' }, https: { secret: 'org-clone' } },
  { match: 'git.example/me/', ssh: { secret: 'my-key' } },
];

test.each([
  ['git.example/me/site', 'my-key'],
  ['git.example/them/site', 'org-key'],
  ['other.example/me/site', undefined],
])('identity %s matches the credential with ssh secret %s', (identity, secret) => {
  expect(matchCredential(identity, creds)?.ssh?.secret).toBe(secret);
});

test.each([
  ['git@git.example:me/site.git', 'ssh'],
  ['ssh://git@git.example/me/site.git', 'ssh'],
  ['https://git.example/me/site.git', 'https'],
  ['http://git.example/me/site.git', undefined],
  ['/srv/git/site.git', undefined],
])('url %s clones over %s', (url, scheme) => expect(schemeOf(url)).toBe(scheme));

// Issue 29: schemeOf read `git@host@evil:path` as ssh with its own pattern while the clone url rule refused it.
test.each([
  'git@git.example:me/site.git',
  'git@host@evil.example:me/site.git',
  'git@git.example:',
  'git@git.example:me/site .git',
  'oauth2:TOKEN@git.example:me/site.git',
])('scp-like %s is ssh to schemeOf exactly when the clone url rule accepts it', (url) =>
  expect(schemeOf(url) === 'ssh').toBe(cloneUrlProblem(url) === undefined),
);

test('the scheme picks the field of the matched entry; an entry without it names none', () => {
  expect(credentialSecretFor('https://git.example/x', creds[0])).toEqual({ kind: 'https', secret: 'org-clone' });
  expect(credentialSecretFor('https://git.example/x', creds[1])).toBeUndefined();
});

const spec = (url: string): RepoSpec => ({
  namespace: 'jr2',
  key: 'site',
  version: 'v1alpha1',
  url,
  identity: 'git.example/them/site',
  credentials: creds,
  refreshInterval: '5m',
});

test('an https clone Secret is stated only when it exists; an ssh deploy key always', () => {
  expect(wantedSecretRef(spec('https://git.example/them/site'), () => false)).toBeUndefined();
  expect(wantedSecretRef(spec('https://git.example/them/site'), () => true)).toEqual({ name: 'org-clone' });
  expect(wantedSecretRef(spec('git@git.example:them/site'), () => false)).toEqual({ name: 'org-key' });
});

test('the diff names only the owned fields that differ', () => {
  const annotations = { 'core.jr2.dev/identity': 'git.example/them/site' };
  const live = {
    metadata: { labels: { other: 'x' }, annotations },
    spec: { url: 'https://old', secretRef: { name: 'org-clone' } },
  };
  expect(diffRepo(spec('https://new'), { name: 'org-clone' }, live)).toEqual({
    'spec.url': { live: 'https://old', want: 'https://new' },
    [`label ${LABEL_REPO_BOUND}`]: { live: null, want: 'true' },
  });
});

// Audit: a hand-made Repo's token reached the plan, the state and apply's "did not converge" through this diff.
test('the diff says a live url with a token differs and shows it without the token', () => {
  const url = 'https://oauth2:TOKEN@git.example/them/site.git?private_token=TOKEN';
  const diff = diffRepo(spec('https://git.example/them/site.git'), undefined, { spec: { url } });
  expect(diff['spec.url']).toEqual({
    live: 'https://***@git.example/them/site.git?***',
    want: 'https://git.example/them/site.git',
  });
  expect(JSON.stringify(diff)).not.toContain('TOKEN');
});

test('a Repo answer is read for its owned fields whatever its shape', () => {
  const answer = {
    metadata: { resourceVersion: '7', labels: { [LABEL_REPO_BOUND]: 'true', odd: 5 }, annotations: 'not a map' },
    spec: { url: 'https://git.example/x', secretRef: 'not a ref' },
  };
  expect(liveRepoOf(answer)).toEqual({
    metadata: { resourceVersion: '7', labels: { [LABEL_REPO_BOUND]: 'true' }, annotations: undefined },
    spec: { url: 'https://git.example/x', secretRef: undefined },
  });
  expect(liveRepoOf(null)).toEqual({ metadata: undefined, spec: undefined });
});

test('a Repo deleted and held by its finalizers is drift, and the apply says why it cannot restate it', () => {
  const live = liveRepoOf({
    metadata: { deletionTimestamp: '2026-12-06T17:00:00Z', finalizers: ['example.com/hold', 7] },
    spec: { url: 'https://new' },
  });
  expect(diffRepo(spec('https://new'), undefined, live)).toMatchObject({
    'metadata.deletionTimestamp': { live: '2026-12-06T17:00:00Z', want: null },
  });
  expect(terminating('Repo ns/r', live)?.message).toBe(
    'Repo ns/r is being deleted: deleted at 2026-12-06T17:00:00Z, held by the finalizers "example.com/hold": it ' +
      'goes once they are done, and the next apply creates it again; nothing was written',
  );
  expect(terminating('Repo ns/r', liveRepoOf({ metadata: {} }))).toBeUndefined();
});

// Regression (discover e2e): a Repo made elsewhere sets no refreshInterval, and the agent fetches it every 5m (seed
// 004), so its adoption with the construct's default named an interval the apply "leaves".
test.each([
  ['unset, declared the default', undefined, '5m', undefined],
  ['unset, declared another', undefined, '1h', 'spec.refreshInterval is unset, declared "1h"'],
  ['set as declared', '1h', '1h', undefined],
  ['set otherwise', '1h', '5m', 'spec.refreshInterval is "1h", declared "5m"'],
])('a live refreshInterval %s', (_, have, declared, words) => {
  const live = { spec: { url: 'https://x', ...(have === undefined ? {} : { refreshInterval: have }) } };
  const left = intervalLeft({ ...spec('https://x'), refreshInterval: declared }, live);
  if (words === undefined) expect(left).toBeUndefined();
  else expect(left).toBe(`${words}: set at create only, so the apply leaves it`);
});
