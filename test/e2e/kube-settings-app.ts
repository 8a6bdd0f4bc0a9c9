/**
 * The app of test/e2e/kube-repo-settings.test.ts: one KubeRepo on the cluster of HOMELAB_KUBECONFIG, in
 * HOMELAB_KUBE_NAMESPACE, its key HOMELAB_KUBE_REPO_KEY, with the destroy settings the test flips between applies:
 * deleteOnDestroy from HOMELAB_KUBE_DELETE_ON_DESTROY (`true`) and the CRD version from HOMELAB_KUBE_REPO_VERSION;
 * with HOMELAB_KUBE_CLONE_SECRET, the https clone Secret its credentials name (test/e2e/kube-secret-race.test.ts).
 */
import { App, TerraformStack } from 'cdktf';
import { KubeCluster, KubeRepo } from '../../index';

const env = process.env;
const app = new App();
const stack = new TerraformStack(app, 'settings');
const cluster = new KubeCluster(stack, 'home', { kubeconfig: env.HOMELAB_KUBECONFIG || undefined });
const key = env.HOMELAB_KUBE_REPO_KEY ?? 'site';
new KubeRepo(stack, 'site', {
  cluster,
  namespace: env.HOMELAB_KUBE_NAMESPACE ?? 'jr2',
  key,
  url: `https://git.example/me/${key}.git`,
  identity: `git.example/me/${key}`,
  deleteOnDestroy: env.HOMELAB_KUBE_DELETE_ON_DESTROY === 'true',
  version: env.HOMELAB_KUBE_REPO_VERSION || undefined,
  credentials: env.HOMELAB_KUBE_CLONE_SECRET
    ? [{ match: 'git.example/me/', https: { secret: env.HOMELAB_KUBE_CLONE_SECRET } }]
    : undefined,
});
app.synth();
