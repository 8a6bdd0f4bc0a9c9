// Synth test of KubeCluster and KubeRepo: the defaults reach the spec (version v1alpha1, refreshInterval 5m), the
// stack holds the kubeconfig's path and context and nothing from inside it, and bad props fail at synth.
import { Testing, TerraformStack } from 'cdktf';
import { KubeCluster, type KubeClusterProps } from '../../../../constructs/kube/cluster';
import { KubeRepo, type KubeRepoProps } from '../../../../constructs/kube/kube-repo';
import { parsedEntry } from '../batch-apply';

const synth = (repo: Partial<KubeRepoProps> = {}, cluster: KubeClusterProps = { kubeconfig: '~/.kube/config' }) => {
  const stack = new TerraformStack(Testing.app(), 'test');
  const k = new KubeCluster(stack, 'home', { context: 'home', ...cluster });
  new KubeRepo(stack, 'site', {
    cluster: k,
    namespace: 'jr2',
    key: 'site',
    url: 'git@git.example:me/site.git',
    identity: 'git.example/me/site',
    credentials: [{ match: 'git.example/', ssh: { secret: 'deploy-key' } }],
    ...repo,
  });
  return JSON.parse(Testing.synth(stack));
};

test('defaults reach the spec; the target is the kubeconfig path and context only', () => {
  const json = synth();
  const target = { name: 'home', kubeconfig: '~/.kube/config', context: 'home' };
  expect(JSON.parse(json.resource.terraform_data.home_apply.input.target)).toEqual(target);
  const lifecycle = json.resource.terraform_data.site_lifecycle;
  expect(JSON.parse(lifecycle.input).target).toBe('home');
  expect(JSON.parse(lifecycle.provisioner[0]['local-exec'].environment.HOMELAB_TARGET)).toEqual(target);
  expect(parsedEntry(json, 'home', 'site')).toMatchObject({
    kind: 'kube-repo',
    spec: { version: 'v1alpha1', refreshInterval: '5m', key: 'site' },
  });
  const { identity } = JSON.parse(lifecycle.input);
  expect(identity).toEqual({ namespace: 'jr2', key: 'site', version: 'v1alpha1', deleteOnDestroy: false });
});

test.each<[string, Partial<KubeRepoProps>, RegExp]>([
  ['a key that is not a DNS name', { key: 'Site_1' }, /site: key must be a DNS name, got "Site_1"/],
  ['an empty identity', { identity: '' }, /identity must be a non-empty string of at most 1024 characters, got ""/],
  [
    'a Secret name with a slash',
    { credentials: [{ match: 'g/', ssh: { secret: 'a/b' } }] },
    /credentials\[0\]\.ssh\.secret must be a Secret name, got "a\/b"/,
  ],
])('%s fails at synth', (_, props, message) => expect(() => synth(props)).toThrow(message));

test('inCluster excludes a kubeconfig', () => {
  expect(() => synth({}, { inCluster: true, kubeconfig: '~/.kube/config' })).toThrow(/kubeconfig must be left unset/);
});
