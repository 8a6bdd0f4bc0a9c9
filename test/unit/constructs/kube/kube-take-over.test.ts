/**
 * `takeOver` on KubeRepo and KubeRepoFetch (issue 27 items 3 and 4) reaches the handler: in the batch read's query
 * (the plan says the Repo or ask will be taken from the stack its mark names) and in the batch apply's entry (the
 * apply may take it); left out, neither says it. A value that is not a boolean stops the synth naming the prop.
 */
import { Testing, TerraformStack } from 'cdktf';
import { KubeCluster } from '../../../../constructs/kube/cluster';
import { KubeRepo } from '../../../../constructs/kube/kube-repo';
import { KubeRepoFetch } from '../../../../constructs/kube/kube-repo-fetch';
import { entryOf, queryOf } from '../batch-apply';

const REPO = { namespace: 'jr2', key: 'site', url: 'https://git.example/me/site', identity: 'git.example/me/site' };

const synth = (takeOver: boolean | undefined) => {
  const stack = new TerraformStack(Testing.app(), 'test');
  const cluster = new KubeCluster(stack, 'home', { kubeconfig: '~/.kube/config' });
  new KubeRepo(stack, 'site', { cluster, ...REPO, takeOver });
  new KubeRepoFetch(stack, 'ask', {
    cluster,
    namespace: 'jr2',
    sandbox: 'agent-1',
    key: 'site',
    trigger: 'v1',
    takeOver,
  });
  return JSON.parse(Testing.synth(stack));
};

test('takeOver: true reaches the read query and the apply entry of the Repo and the fetch ask', () => {
  const json = synth(true);
  for (const name of ['site', 'ask']) {
    expect(JSON.parse(queryOf(json, 'home')[name] as string)).toMatchObject({ takeOver: true });
    expect(JSON.parse(entryOf(json, 'home', name).text)).toMatchObject({ takeOver: true });
  }
  for (const name of ['site', 'ask']) expect(entryOf(synth(undefined), 'home', name).text).not.toContain('takeOver');
});

test('a takeOver that is not a boolean stops the synth, naming the prop', () => {
  const stack = new TerraformStack(Testing.app(), 'test');
  const cluster = new KubeCluster(stack, 'home', { kubeconfig: '~/.kube/config' });
  const wrong = 'yes' as unknown as boolean;
  new KubeRepo(stack, 'site', { cluster, ...REPO, takeOver: wrong });
  new KubeRepoFetch(stack, 'ask', {
    cluster,
    namespace: 'jr2',
    sandbox: 'a',
    key: 'site',
    trigger: 'v',
    takeOver: wrong,
  });
  expect(() => Testing.synth(stack)).toThrow(
    '2 problems in 2 constructs:\ntest/site: takeOver must be a boolean, got "yes"\n' +
      'test/ask: takeOver must be a boolean, got "yes"',
  );
});
