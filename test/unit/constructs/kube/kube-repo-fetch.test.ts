// Synth test of KubeRepoFetch: the defaults reach the spec (budgetSeconds 75, version v1alpha1), the ask has no
// destroy hook (nothing to destroy), a trigger token is encoded by Terraform, and bad props fail at synth naming them.
import { Testing, TerraformStack, TerraformVariable } from 'cdktf';
import { KubeCluster } from '../../../../constructs/kube/cluster';
import { KubeRepoFetch, type KubeRepoFetchProps } from '../../../../constructs/kube/kube-repo-fetch';
import { entryOf, parsedEntry, queryOf } from '../batch-apply';

const synth = (
  props: Partial<KubeRepoFetchProps> = {},
  extra?: (stack: TerraformStack) => Partial<KubeRepoFetchProps>,
) => {
  const stack = new TerraformStack(Testing.app(), 'test');
  const cluster = new KubeCluster(stack, 'home', { kubeconfig: '~/.kube/config', context: 'home' });
  new KubeRepoFetch(stack, 'warm-site', {
    cluster,
    namespace: 'jr2',
    sandbox: 'agent-1',
    key: 'site',
    trigger: 'v1.2.0',
    ...props,
    ...extra?.(stack),
  });
  return JSON.parse(Testing.synth(stack));
};

test('all defaults: budgetSeconds 75 and version v1alpha1 reach the spec, and the read is the cluster’s batch', () => {
  const out = synth();
  expect(parsedEntry(out, 'home', 'warm-site')).toEqual({
    kind: 'kube-repo-fetch',
    spec: {
      namespace: 'jr2',
      sandbox: 'agent-1',
      key: 'site',
      version: 'v1alpha1',
      trigger: 'v1.2.0',
      budgetSeconds: 75,
    },
  });
  expect(out.resource.terraform_data.home_apply.provisioner[0]['local-exec'].command).toMatch(/ batch apply$/);
  expect(JSON.parse(queryOf(out, 'home')['warm-site'] ?? '')).toMatchObject({ kind: 'kube-repo-fetch' });
});

test('the ask has no destroy hook and its identity leaves the trigger out', () => {
  const lifecycle = synth().resource.terraform_data['warm-site_lifecycle'];
  expect(lifecycle).not.toHaveProperty('provisioner');
  expect(JSON.parse(lifecycle.input).identity).toEqual({
    namespace: 'jr2',
    sandbox: 'agent-1',
    key: 'site',
    version: 'v1alpha1',
  });
});

test('a trigger from a variable is encoded by Terraform and replaces the apply when it moves', () => {
  const out = synth({}, (stack) => ({
    trigger: new TerraformVariable(stack, 'release', { type: 'string' }).stringValue,
  }));
  // The entry is the apply's trigger: a new value of the variable is a new entry.
  const { text } = entryOf(out, 'home', 'warm-site');
  expect(text).toMatch(/^\{"kind":"kube-repo-fetch","spec":\$\{jsonencode\(/);
  expect(text).toContain('var.release');
});

test.each<[string, Partial<KubeRepoFetchProps>, RegExp]>([
  ['a sandbox that is not a DNS name', { sandbox: 'Agent_1' }, /warm-site: sandbox must be a DNS name, got "Agent_1"/],
  [
    'a key longer than an annotation allows',
    { key: 'k'.repeat(64) },
    /key must be a DNS name of at most 63 characters/,
  ],
  ['an empty trigger', { trigger: '' }, /trigger must be a non-empty string of at most 4096 characters, got ""/],
  ['a budget of 0', { budgetSeconds: 0 }, /budgetSeconds must be an integer from 1 to 3600, got 0/],
  ['a fractional budget', { budgetSeconds: 7.5 }, /budgetSeconds must be an integer from 1 to 3600, got 7.5/],
  ['a version that is not one', { version: '1' }, /version must be a Kubernetes API version such as v1alpha1/],
])('%s fails at synth', (_, props, message) => expect(() => synth(props)).toThrow(message));
