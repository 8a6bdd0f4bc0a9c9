/**
 * Every prop of KubeRepo judged as a plain-JavaScript app passes it: a wrong type, a missing required prop or
 * cluster and a misspelling each get one message naming the construct, the prop and the rule (never a TypeError),
 * every broken rule is reported at once, and the handler boundary refuses what synth refuses when the value was
 * only known at apply.
 */
import { Testing, TerraformStack, TerraformVariable } from 'cdktf';
import { KubeCluster } from '../../../../constructs/kube/cluster';
import { KubeRepo } from '../../../../constructs/kube/kube-repo';
import { parseAs } from '../../../../src/core/parse';
import { repoIdentitySchema, repoSpecSchema } from '../../../../src/kube/kube-repo';
import { synthError } from '../synth-error';
import { onCluster } from './on-cluster';

const VALID = { namespace: 'jr2', key: 'site', url: 'git@git.example:me/site.git', identity: 'git.example/me/site' };

/** The synth error of a KubeRepo with `props` over the valid ones. */
const repoError = (props: Record<string, unknown>, withCluster = true): string =>
  synthError((stack) => new KubeRepo(stack, 'site', onCluster(stack, { ...VALID, ...props }, withCluster)));

const CLONE_URL = 'a clone url: https://host/path, ssh://[user@]host/path or user@host:path';
const IDENTITY = 'a non-empty string of at most 1024 characters';
const SECRET_REF = 'an object naming a Secret: { secret: <name> }';

describe('KubeRepo props from plain JavaScript', () => {
  test.each([
    [
      'namespace',
      42,
      'namespace must be a namespace name (a DNS label: a-z, 0-9 and -, at most 63 characters), got 42',
    ],
    // An audit (2026-12-05): a subdomain passed synth; the API server holds a namespace to a label.
    [
      'namespace',
      'jr2.lab',
      'namespace must be a namespace name (a DNS label: a-z, 0-9 and -, at most 63 characters), got "jr2.lab"',
    ],
    ['key', true, 'key must be a DNS name, got true'],
    ['url', 42, `url must be ${CLONE_URL}, got 42`],
    ['identity', 7, `identity must be ${IDENTITY}, got 7`],
    ['credentials', 'deploy-key', 'credentials must be a list of credentials, got "deploy-key"'],
    ['refreshInterval', 'often', 'refreshInterval must be a Go duration such as 5m or 1h30m, got "often"'],
    ['version', 1, 'version must be a Kubernetes API version such as v1alpha1, got 1'],
    ['deleteOnDestroy', 'yes', 'deleteOnDestroy must be a boolean, got "yes"'],
    ['retired', 'no', 'retired must be a boolean, got "no"'],
  ])('%s: a wrong type names the prop and the rule', (prop, value, says) => {
    expect(repoError({ [prop]: value })).toBe(`test/site: ${says}`);
  });

  test.each<[string, unknown, string]>([
    ['an entry that is not an object', ['x'], 'credentials[0] must be an object { match, ssh?, https? }, got "x"'],
    [
      'an entry without match',
      [{ ssh: { secret: 'k' } }],
      'credentials[0].match is required: a non-empty prefix of at most 1024 characters',
    ],
    ['a secret given as a string', [{ match: 'g/', ssh: 'k' }], `credentials[0].ssh must be ${SECRET_REF}, got "k"`],
    [
      'a Secret name of the wrong type',
      [{ match: 'g/' }, { match: 'h/', https: { secret: 5 } }],
      'credentials[1].https.secret must be a Secret name, got 5',
    ],
    [
      'a misspelled field',
      [{ match: 'g/', shh: { secret: 'k' } }],
      'credentials[0].shh is not a prop of a credential; did you mean ssh?',
    ],
  ])('credentials: %s is named where it is', (_, credentials, says) => {
    expect(repoError({ credentials })).toBe(`test/site: ${says}`);
  });

  test.each([
    ['namespace', 'namespace is required: a namespace name (a DNS label: a-z, 0-9 and -, at most 63 characters)'],
    ['key', 'key is required: a DNS name'],
    ['url', `url is required: ${CLONE_URL}`],
    ['identity', `identity is required: ${IDENTITY}`],
  ])('%s: a missing required prop is refused at synth, not at plan', (prop, says) => {
    expect(repoError({ [prop]: undefined })).toBe(`test/site: ${says}`);
  });

  test('a missing cluster is refused naming it, not a TypeError', () => {
    expect(repoError({}, false)).toBe('test/site: cluster is required: a KubeCluster');
  });

  test('a stack given as the cluster is named by its class', () => {
    const stack = new TerraformStack(Testing.app(), 'other');
    expect(repoError({ cluster: stack })).toBe('test/site: cluster must be a KubeCluster, got a TerraformStack');
  });

  test('a misspelled prop is refused with the closest name', () => {
    expect(repoError({ refreshIntervall: '1h' })).toBe(
      'test/site: refreshIntervall is not a prop of KubeRepo; did you mean refreshInterval?',
    );
    expect(repoError({ colour: 'red' })).toBe('test/site: colour is not a prop of KubeRepo');
  });

  test('every broken rule is reported at once', () => {
    expect(repoError({ namespace: undefined, url: 'https://TOKEN@git.example/x', deleteOnDestroy: 1 })).toBe(
      '3 problems in 1 construct:\ntest/site: namespace is required: a namespace name (a DNS label: a-z, 0-9 and -, ' +
        'at most 63 characters)\n' +
        'test/site: url must be free of credentials (a clone Secret named in credentials[].https or .ssh carries ' +
        'them), got "https://***@git.example/x"\ntest/site: deleteOnDestroy must be a boolean, got 1',
    );
  });

  test('values known only at apply pass synth and are refused by the same rules at the handler', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const cluster = new KubeCluster(stack, 'home', {});
    const value = (id: string) => new TerraformVariable(stack, id, { type: 'string' }).stringValue;
    const credentials = [{ match: 'g/', ssh: { secret: value('secret') } }];
    new KubeRepo(stack, 'site', { cluster, ...VALID, refreshInterval: value('every'), credentials });
    expect(() => Testing.synth(stack)).not.toThrow();
    const spec = { ...VALID, version: 'v1alpha1', refreshInterval: 'often', credentials: [{ match: 'g/' }] };
    expect(() => parseAs(repoSpecSchema, spec, 'spec')).toThrow(
      'Bad input: spec.refreshInterval: must be a Go duration such as 5m or 1h30m, got "often"',
    );
    const secret = { ...spec, refreshInterval: '5m', credentials: [{ match: 'g/', ssh: { secret: 'a/b' } }] };
    expect(() => parseAs(repoSpecSchema, secret, 'spec')).toThrow(
      'Bad input: spec.credentials[0].ssh.secret: must be a Secret name, got "a/b"',
    );
  });

  test('the handler refuses every broken rule of a hand-written spec and identity at once', () => {
    const spec = { ...VALID, key: 'Site', version: '1', refreshInterval: '5m', credentials: [] };
    expect(() => parseAs(repoSpecSchema, spec, 'spec')).toThrow(
      'Bad input: spec.key: must be a DNS name, got "Site"; ' +
        'spec.version: must be a Kubernetes API version such as v1alpha1, got "1"',
    );
    const identity = { namespace: 'jr2/x', key: 'site', version: 'v1alpha1', deleteOnDestroy: false };
    expect(() => parseAs(repoIdentitySchema, identity, 'identity')).toThrow(
      'Bad input: identity.namespace: must be a namespace name (a DNS label: a-z, 0-9 and -, at most 63 ' +
        'characters), got "jr2/x"',
    );
  });
});
