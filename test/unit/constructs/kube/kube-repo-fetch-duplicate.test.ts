// Synth test of the one-ask rule (issue 16 item 10): two KubeRepoFetch objects for the same Sandbox and key in one
// stack sent two asks per apply, and in 1 of 6 runs printed different verdicts; the second is refused at synth
// naming both constructs. Another key, Sandbox, namespace, cluster or stack is a different ask.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Testing, TerraformStack } from 'cdktf';
import { KubeCluster, type KubeClusterProps } from '../../../../constructs/kube/cluster';
import { KubeRepoFetch, type KubeRepoFetchProps } from '../../../../constructs/kube/kube-repo-fetch';

const ASK = { namespace: 'jr2', sandbox: 'agent-1', key: 'site', trigger: 'v1' };

const twoAsks = (second: Partial<KubeRepoFetchProps> = {}, secondCluster?: KubeClusterProps) => {
  const stack = new TerraformStack(Testing.app(), 'test');
  const home = new KubeCluster(stack, 'home', { kubeconfig: '~/.kube/config' });
  const other = secondCluster === undefined ? home : new KubeCluster(stack, 'other', secondCluster);
  new KubeRepoFetch(stack, 'warm-a', { cluster: home, ...ASK });
  new KubeRepoFetch(stack, 'warm-b', { cluster: other, ...ASK, trigger: 'v2', ...second });
  return Testing.synth(stack);
};

test('a second ask for the same Sandbox and key fails at synth naming both constructs', () => {
  expect(() => twoAsks()).toThrow(
    'test/warm-b: key must be asked for by one KubeRepoFetch per Sandbox (test/warm-a already asks Sandbox ' +
      'jr2/agent-1 for it; two asks in one apply race and may print different verdicts: keep one), got "site"',
  );
});

test('the same kubeconfig and context under another KubeCluster is the same cluster, so the same ask', () => {
  expect(() => twoAsks({}, { kubeconfig: '~/.kube/config', timeoutSeconds: 5 })).toThrow(/test\/warm-a already asks/);
});

test('a CRD version of its own does not make it another ask: the annotation is the same', () => {
  expect(() => twoAsks({ version: 'v1' })).toThrow(/test\/warm-a already asks/);
});

test.each<[string, Partial<KubeRepoFetchProps>, KubeClusterProps | undefined]>([
  ['another key', { key: 'docs' }, undefined],
  ['another Sandbox', { sandbox: 'agent-2' }, undefined],
  ['another namespace', { namespace: 'jr3' }, undefined],
  ['another context', {}, { kubeconfig: '~/.kube/config', context: 'lab' }],
])('%s is a different ask and synthesizes', (_, second, cluster) =>
  expect(() => twoAsks(second, cluster)).not.toThrow(),
);

test('the same ask in two stacks of one app is two applies, each with one ask', () => {
  const app = new App();
  for (const name of ['one', 'two']) {
    const stack = new TerraformStack(app, name);
    const home = new KubeCluster(stack, 'home', { kubeconfig: '~/.kube/config' });
    new KubeRepoFetch(stack, 'warm', { cluster: home, ...ASK });
    expect(() => Testing.synth(stack)).not.toThrow();
  }
});

// Issue 27: the rule keyed on the settings' text, so another spelling of the same file or context asked twice.
describe('the same kubeconfig file and context however they are spelled', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'homelab-ask-'));
    writeFileSync(join(dir, 'stack.kubeconfig'), 'apiVersion: v1\nkind: Config\ncurrent-context: home\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const asksTwice = (first: KubeClusterProps, second: KubeClusterProps) => () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    new KubeRepoFetch(stack, 'warm-a', { cluster: new KubeCluster(stack, 'a', first), ...ASK });
    new KubeRepoFetch(stack, 'warm-b', { cluster: new KubeCluster(stack, 'b', second), ...ASK, trigger: 'v2' });
    return Testing.synth(stack);
  };

  test.each<[string, (dir: string) => KubeClusterProps]>([
    ['a ./ in the path', (d) => ({ kubeconfig: `${d}/./stack.kubeconfig` })],
    ['a .. in the path', (d) => ({ kubeconfig: `${d}/x/../stack.kubeconfig` })],
    ['the current context named', (d) => ({ kubeconfig: `${d}/stack.kubeconfig`, context: 'home' })],
  ])('%s is the same ask', (_, second) => {
    expect(asksTwice({ kubeconfig: `${dir}/stack.kubeconfig` }, second(dir))).toThrow(/test\/warm-a already asks/);
  });

  test('another context of the same file is another ask', () => {
    const other = { kubeconfig: `${dir}/stack.kubeconfig`, context: 'lab' };
    expect(asksTwice({ kubeconfig: `${dir}/stack.kubeconfig` }, other)).not.toThrow();
  });
});
