/**
 * A Repo's identity with a query or a fragment (an audit, 2026-12-05): `git.example/me/c?private_token=TOKEN`
 * passed synth and the handler, so a token copied from a url reached the state, the Repo's identity annotation and
 * the plan, where the url rule (e79e95b) refused it. An identity is a host and path: it is refused at synth with every
 * other problem, by the handler for a value Terraform knows only at apply, and a live annotation holding one is
 * shown with its query hidden.
 */
import { Testing, TerraformStack, TerraformVariable } from 'cdktf';
import { KubeCluster } from '../../../../constructs/kube/cluster';
import { KubeRepo } from '../../../../constructs/kube/kube-repo';
import { parseAs } from '../../../../src/core/parse';
import { diffRepo, type RepoSpec, repoSpecSchema } from '../../../../src/kube/kube-repo';
import { ANNOTATION_REPO_IDENTITY } from '../../../../src/kube/names';
import { synthError } from '../synth-error';
import { onCluster } from './on-cluster';

const VALID = { namespace: 'jr2', key: 'site', url: 'git@git.example:me/site.git', identity: 'git.example/me/site' };
const RULE = 'identity must be free of a query (?) and a fragment (#): an identity is a host and path';

const repoError = (props: Record<string, unknown>): string =>
  synthError((stack) => new KubeRepo(stack, 'site', onCluster(stack, { ...VALID, ...props })));

test.each([
  ['git.example/me/c?private_token=TOKEN', '"git.example/me/c?***"'],
  ['git.example/me/d#TOKEN', '"git.example/me/d#***"'],
  ['git.example/me/e?', '"git.example/me/e?***"'],
])('an identity with a query or fragment (%s) fails at synth without showing it', (identity, shown) => {
  const message = repoError({ identity });
  expect(message).toContain(`test/site: ${RULE}`);
  expect(message).toContain(`got ${shown}`);
  expect(message).not.toContain('TOKEN');
});

test('an identity over 1024 characters with a token in its query is refused without showing the token', () => {
  const message = repoError({ identity: `git.example/me/c?t=${'S'.repeat(1100)}` });
  expect(message).toContain(RULE);
  expect(message).not.toContain('SSSS');
});

test('the identity is reported with every other broken rule at once', () => {
  expect(repoError({ identity: 'git.example/x#TOKEN', url: 'https://git.example/x?TOKEN' })).toBe(
    '2 problems in 1 construct:\n' +
      'test/site: url must be free of a query (?) and a fragment (#): git clones a url without them, and a token ' +
      'there belongs in the clone Secret credentials[].https names, got "https://git.example/x?***"\n' +
      `test/site: ${RULE} such as git.example/me/site, and a token there would reach the state, the Repo and the ` +
      'plan, got "git.example/x#***"',
  );
});

test('an identity built from a Terraform value is refused on its known parts', () => {
  const stack = new TerraformStack(Testing.app(), 'test');
  const cluster = new KubeCluster(stack, 'home', {});
  const token = new TerraformVariable(stack, 'token', { type: 'string', sensitive: true }).stringValue;
  new KubeRepo(stack, 'site', { cluster, ...VALID, identity: `git.example/me/c?private_token=${token}` });
  expect(() => Testing.synth(stack)).toThrow(`${RULE}`);
});

test('an identity known only at apply is refused by the same rule at the handler, its query hidden', () => {
  const spec = { ...VALID, identity: 'git.example/me/c?private_token=TOKEN', version: 'v1alpha1' };
  const parse = () => parseAs(repoSpecSchema, { ...spec, refreshInterval: '5m', credentials: [] }, 'spec');
  expect(parse).toThrow(/^Bad input: spec\.identity: must be free of a query \(\?\) and a fragment \(#\)/);
  expect(parse).toThrow(/got "git\.example\/me\/c\?\*\*\*"$/);
});

test("a live identity annotation holding a query is drift, shown with its query hidden in the plan's diff", () => {
  const spec: RepoSpec = { ...VALID, version: 'v1alpha1', refreshInterval: '5m', credentials: [] };
  const annotations = { [ANNOTATION_REPO_IDENTITY]: 'git.example/me/site?private_token=TOKEN' };
  const diff = diffRepo(spec, undefined, { metadata: { annotations }, spec: { url: VALID.url } });
  expect(diff[`annotation ${ANNOTATION_REPO_IDENTITY}`]).toEqual({
    live: 'git.example/me/site?***',
    want: 'git.example/me/site',
  });
});
