// Unit test of the Repo's clone Secret as its plan read it (clone-secret.ts), as a truth table: the plan's basis
// against the apply's own reading decides whether the apply may write, for https and ssh urls, with and without a
// plan's reading (a run by hand has none); and the note a plan line gets while the Secret is missing.
import { cloneSecretBasis, cloneSecretMissing, cloneSecretMoved } from '../../../../src/kube/clone-secret';
import type { RepoSpec } from '../../../../src/kube/kube-repo';

const spec = (url: string): RepoSpec => ({
  namespace: 'jr2',
  key: 'docs',
  version: 'v1alpha1',
  url,
  identity: 'git.example/me/docs',
  credentials: [{ match: 'git.example/', ssh: { secret: 'deploy' }, https: { secret: 'clone' } }],
  refreshInterval: '5m',
});
const https = spec('https://git.example/me/docs.git');
const ssh = spec('git@git.example:me/docs.git');
const EXISTS = 'clone Secret jr2/clone exists';
const ABSENT = 'clone Secret jr2/clone is absent';

test.each([
  ['an https url', true, EXISTS, https],
  ['an https url', false, ABSENT, https],
  ['an ssh url', true, undefined, ssh],
  ['an https url of another host', true, EXISTS, spec('https://other.example/docs.git')],
])("the plan's basis of %s with the Secret present %s is %s", (_url, present, basis, repo) => {
  expect(cloneSecretBasis(repo, () => present)).toBe(basis);
});

const DELETED = /was deleted after the plan read it, so this apply would write the Repo without spec\.secretRef/;
const CREATED = /was created after the plan read it absent, so this apply would write spec\.secretRef "clone"/;

test.each([
  ['an https url', EXISTS, true, undefined, https],
  ['an https url', ABSENT, false, undefined, https],
  ['an https url run by hand', undefined, false, undefined, https],
  ['an ssh url', EXISTS, false, undefined, ssh],
  ['an https url', EXISTS, false, DELETED, https],
  ['an https url', ABSENT, true, CREATED, https],
])(
  'an apply of %s planned on "%s", finding the Secret present %s, is refused: %s',
  (_u, planned, present, why, repo) => {
    const refusal = cloneSecretMoved('Repo jr2/docs', repo, planned, present);
    if (why === undefined) return expect(refusal).toBeUndefined();
    expect(refusal?.message).toMatch(why);
    expect(refusal?.message).toMatch(
      /^Repo jr2\/docs cannot be applied as planned: .*; nothing was written: plan again/,
    );
  },
);

const MISSING = 'its clone Secret jr2/clone does not exist, so the Repo states no spec.secretRef until it does';

test.each([
  ['an https url', false, MISSING, https],
  ['an https url', true, undefined, https],
  ['an ssh url', false, undefined, ssh],
])('the plan line of %s with the Secret present %s notes %s', (_url, present, note, repo) => {
  expect(cloneSecretMissing(repo, () => present)).toBe(note);
});
