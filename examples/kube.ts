/**
 * Two Repos a cluster's node caches serve, stated by the stack: one cloned over ssh with a deploy key, one over
 * https with a clone Secret. The cluster comes from HOMELAB_KUBECONFIG (and HOMELAB_KUBE_CONTEXT), the namespace
 * from HOMELAB_KUBE_NAMESPACE, so the e2e test points it at its own API server; no credential is in the stack.
 */
import { App, TerraformStack } from 'cdktf';
import type { Construct } from 'constructs';
import { KubeCluster, KubeRepo } from '../index';

export interface KubeStackProps {
  /** @default - KUBECONFIG, else ~/.kube/config */
  readonly kubeconfig?: string;
  /** @default - the kubeconfig's current-context */
  readonly context?: string;
  /** @default "jr2" */
  readonly namespace?: string;
  /** The site's clone url (changing it restates spec.url). @default "git@git.example:me/site.git" */
  readonly siteUrl?: string;
}

export class KubeStack extends TerraformStack {
  readonly cluster: KubeCluster;
  readonly site: KubeRepo;
  readonly docs: KubeRepo;

  constructor(scope: Construct, id: string, props: KubeStackProps = {}) {
    super(scope, id);
    const namespace = props.namespace ?? 'jr2';
    this.cluster = new KubeCluster(this, 'home', { kubeconfig: props.kubeconfig, context: props.context });
    this.site = new KubeRepo(this, 'site', {
      cluster: this.cluster,
      namespace,
      key: 'site',
      url: props.siteUrl ?? 'git@git.example:me/site.git',
      identity: 'git.example/me/site',
      credentials: [{ match: 'git.example/', ssh: { secret: 'deploy-key-site' } }],
    });
    // An https url names the clone Secret only once it exists in the namespace (a metadata-only check).
    this.docs = new KubeRepo(this, 'docs', {
      cluster: this.cluster,
      namespace,
      key: 'docs',
      url: 'https://git.example/me/docs.git',
      identity: 'git.example/me/docs',
      credentials: [{ match: 'git.example/me/', https: { secret: 'clone-docs' } }],
      refreshInterval: '15m',
    });
  }
}

if (require.main === module) {
  const env = process.env;
  const app = new App();
  new KubeStack(app, 'kube', {
    kubeconfig: env.HOMELAB_KUBECONFIG || undefined,
    context: env.HOMELAB_KUBE_CONTEXT || undefined,
    namespace: env.HOMELAB_KUBE_NAMESPACE || undefined,
    siteUrl: env.HOMELAB_KUBE_SITE_URL || undefined,
  });
  app.synth();
}
