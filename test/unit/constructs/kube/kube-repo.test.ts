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

// An audit (2026-12-05): turning deleteOnDestroy off replaced the lifecycle, whose hook deleted the Repo.
test("the hook carries the Repo's names and settings as declared; the digest stays as earlier versions made it", () => {
  const hookOf = (props: Partial<KubeRepoProps>) => {
    const lifecycle = synth(props).resource.terraform_data.site_lifecycle;
    return { digest: lifecycle.triggers_replace.identity, env: lifecycle.provisioner[0]['local-exec'].environment };
  };
  const kept = hookOf({});
  const on = hookOf({ deleteOnDestroy: true, version: 'v1beta1' });
  // The digests 0.2.0 stored for these identities: another would replace every Repo's lifecycle on upgrade.
  expect(kept.digest).toBe('0ea06aec41a5ff1aa86fc17f38dc908428c02e68aea990d4197a420d577ec171');
  expect(hookOf({ deleteOnDestroy: true }).digest).toBe(
    'fb2539fc2aa426d44a5e50819d2d876247582980743133ae03833c1c65114326',
  );
  expect(JSON.parse(kept.env.HOMELAB_DECLARED)).toEqual({
    names: { namespace: 'jr2', key: 'site' },
    settings: { version: 'v1alpha1', deleteOnDestroy: false },
  });
  expect(JSON.parse(on.env.HOMELAB_DECLARED).settings).toEqual({ version: 'v1beta1', deleteOnDestroy: true });
});
