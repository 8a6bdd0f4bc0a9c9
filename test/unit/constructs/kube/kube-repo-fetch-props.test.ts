/**
 * Every prop of KubeRepoFetch judged as a plain-JavaScript app passes it: a wrong type, a missing required prop or
 * cluster and a misspelling each get one message naming the construct, the prop and the rule (never a TypeError),
 * every broken rule is reported at once, and the handler boundary refuses what synth refuses when the value was
 * only known at apply.
 */
import { Testing, TerraformStack, TerraformVariable } from 'cdktf';
import { KubeCluster } from '../../../../constructs/kube/cluster';
import { KubeRepoFetch } from '../../../../constructs/kube/kube-repo-fetch';
import { parseAs } from '../../../../src/core/parse';
import { repoFetchIdentitySchema, repoFetchSpecSchema } from '../../../../src/kube/kube-repo-fetch';
import { FETCH_SPEC } from '../../src/kube/kube-repo-fetch-fixtures';
import { synthError } from '../synth-error';
import { onCluster } from './on-cluster';

const VALID = { namespace: 'jr2', sandbox: 'agent-1', key: 'site', trigger: 'v1' };

/** The synth error of a KubeRepoFetch with `props` over the valid ones. */
const fetchError = (props: Record<string, unknown>, withCluster = true): string =>
  synthError((stack) => new KubeRepoFetch(stack, 'warm', onCluster(stack, { ...VALID, ...props }, withCluster)));

const KEY = 'a DNS name of at most 63 characters';
const TRIGGER = 'a non-empty string of at most 4096 characters';

describe('KubeRepoFetch props from plain JavaScript', () => {
  test.each([
    [
      'namespace',
      42,
      'namespace must be a namespace name (a DNS label: a-z, 0-9 and -, at most 63 characters), got 42',
    ],
    ['sandbox', ['agent-1'], 'sandbox must be a DNS name, got ["agent-1"]'],
    ['key', 7, `key must be ${KEY}, got 7`],
    ['trigger', 12, `trigger must be ${TRIGGER}, got 12`],
    ['budgetSeconds', '75', 'budgetSeconds must be an integer from 1 to 3600, got "75"'],
    ['version', true, 'version must be a Kubernetes API version such as v1alpha1, got true'],
  ])('%s: a wrong type names the prop and the rule', (prop, value, says) => {
    expect(fetchError({ [prop]: value })).toBe(`test/warm: ${says}`);
  });

  test.each([
    ['namespace', 'namespace is required: a namespace name (a DNS label: a-z, 0-9 and -, at most 63 characters)'],
    ['sandbox', 'sandbox is required: a DNS name'],
    ['key', `key is required: ${KEY}`],
    ['trigger', `trigger is required: ${TRIGGER}`],
  ])('%s: a missing required prop is refused at synth, not at plan', (prop, says) => {
    expect(fetchError({ [prop]: undefined })).toBe(`test/warm: ${says}`);
  });

  test('a missing cluster is refused naming it, not a TypeError', () => {
    expect(fetchError({}, false)).toBe('test/warm: cluster is required: a KubeCluster');
    expect(fetchError({ cluster: 'home' })).toBe('test/warm: cluster must be a KubeCluster, got "home"');
  });

  test('a misspelled prop is refused with the closest name', () => {
    expect(fetchError({ budgetSecond: 30 })).toBe(
      'test/warm: budgetSecond is not a prop of KubeRepoFetch; did you mean budgetSeconds?',
    );
    expect(fetchError({ retired: true })).toBe('test/warm: retired is not a prop of KubeRepoFetch');
  });

  test('every broken rule is reported at once', () => {
    expect(fetchError({ sandbox: undefined, trigger: '', budgetSeconds: 7.5 })).toBe(
      `3 problems in 1 construct:\ntest/warm: sandbox is required: a DNS name\n` +
        `test/warm: trigger must be ${TRIGGER}, got ""\n` +
        'test/warm: budgetSeconds must be an integer from 1 to 3600, got 7.5',
    );
  });

  test('values known only at apply pass synth and are refused by the same rules at the handler', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const cluster = new KubeCluster(stack, 'home', {});
    const trigger = new TerraformVariable(stack, 'release', { type: 'string' }).stringValue;
    const budgetSeconds = new TerraformVariable(stack, 'budget', { type: 'number' }).numberValue;
    new KubeRepoFetch(stack, 'warm', { cluster, ...VALID, trigger, budgetSeconds });
    expect(() => Testing.synth(stack)).not.toThrow();
    expect(() => parseAs(repoFetchSpecSchema, { ...FETCH_SPEC, trigger: '', budgetSeconds: 0 }, 'spec')).toThrow(
      `Bad input: spec.trigger: must be ${TRIGGER}, got ""; ` +
        'spec.budgetSeconds: must be an integer from 1 to 3600, got 0',
    );
  });

  test('the handler refuses a hand-written identity by the same rules', () => {
    const identity = { namespace: 'jr2', sandbox: 'agent-1', key: 'k'.repeat(64), version: 'v1alpha1' };
    expect(() => parseAs(repoFetchIdentitySchema, identity, 'identity')).toThrow(
      `Bad input: identity.key: must be ${KEY}, got "${'k'.repeat(64)}"`,
    );
  });
});
