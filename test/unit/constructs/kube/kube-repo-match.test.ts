/**
 * A KubeRepo credential whose `match` holds a query or a fragment: a match is a prefix of an identity, which the
 * identity rule keeps free of both, so such an entry never matched and the Repo cloned without the Secret it named,
 * with nothing said. It is refused at synth with every other problem (on its known parts when a Terraform value is in
 * it) and by the handler for one known only at apply, shown with its query hidden as an identity is.
 */
import { Testing, TerraformStack, TerraformVariable } from 'cdktf';
import { KubeCluster } from '../../../../constructs/kube/cluster';
import { KubeRepo } from '../../../../constructs/kube/kube-repo';
import { parseAs } from '../../../../src/core/parse';
import { repoSpecSchema } from '../../../../src/kube/kube-repo';
import { synthError } from '../synth-error';
import { onCluster } from './on-cluster';

const VALID = { namespace: 'jr2', key: 'site', url: 'git@git.example:me/site.git', identity: 'git.example/me/site' };
const RULE =
  'must be free of a query (?) and a fragment (#): a match is a prefix of an identity such as git.example/me/, ' +
  'which has neither, so this entry would never match';
const secret = { ssh: { secret: 'deploy-key' } };

const repoError = (credentials: unknown): string =>
  synthError((stack) => new KubeRepo(stack, 'site', onCluster(stack, { ...VALID, credentials })));

test.each([
  ['git.example/me?private_token=TOKEN', '"git.example/me?***"'],
  ['git.example/me#TOKEN', '"git.example/me#***"'],
  ['?', '"?***"'],
])('a match with a query or fragment (%s) fails at synth, named where it is, without showing it', (match, shown) => {
  const message = repoError([
    { match: 'git.example/', ...secret },
    { match, ...secret },
  ]);
  expect(message).toBe(`test/site: credentials[1].match ${RULE}, got ${shown}`);
});

test('a match with a query is reported with every other broken rule at once', () => {
  const message = repoError([{ match: 'git.example/#x', ssh: { secret: 'a/b' } }]);
  expect(message).toContain('2 problems in 1 construct:');
  expect(message).toContain(`test/site: credentials[0].match ${RULE}, got "git.example/#***"`);
  expect(message).toContain('test/site: credentials[0].ssh.secret must be a Secret name, got "a/b"');
});

test('a match built from a Terraform value is refused on its known parts', () => {
  const stack = new TerraformStack(Testing.app(), 'test');
  const cluster = new KubeCluster(stack, 'home', {});
  const org = new TerraformVariable(stack, 'org', { type: 'string' }).stringValue;
  new KubeRepo(stack, 'site', { cluster, ...VALID, credentials: [{ match: `git.example/${org}?t=1`, ...secret }] });
  expect(() => Testing.synth(stack)).toThrow(`test/site: credentials[0].match ${RULE}, got "git.example/x?***"`);
});

test('a match known only at apply is refused by the same rule at the handler, its query hidden', () => {
  const credentials = [{ match: 'git.example/me?private_token=TOKEN', ...secret }];
  const spec = { ...VALID, version: 'v1alpha1', refreshInterval: '5m', credentials };
  const parse = () => parseAs(repoSpecSchema, spec, 'spec');
  expect(parse).toThrow(`Bad input: spec.credentials[0].match: ${RULE}, got "git.example/me?***"`);
});

test('a match that is a prefix of the identity still passes both', () => {
  const credentials = [{ match: 'git.example/me/', ...secret }];
  const stack = new TerraformStack(Testing.app(), 'test');
  new KubeRepo(stack, 'site', onCluster(stack, { ...VALID, credentials }));
  expect(() => Testing.synth(stack)).not.toThrow();
  const spec = { ...VALID, version: 'v1alpha1', refreshInterval: '5m', credentials };
  expect(parseAs(repoSpecSchema, spec, 'spec').credentials).toEqual(credentials);
});
