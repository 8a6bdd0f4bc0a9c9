/**
 * Two Repos a cluster's node caches serve, stated by the stack: one cloned over ssh with a deploy key, one over
 * https with a clone Secret. The cluster comes from HOMELAB_KUBECONFIG (and HOMELAB_KUBE_CONTEXT), the namespace
 * from HOMELAB_KUBE_NAMESPACE, so the e2e test points it at its own API server; no credential is in the stack.
 * Plans read with HOMELAB_KUBE_READ_KUBECONFIG and HOMELAB_KUBE_READ_CONTEXT when set (a read-only identity).
 * With HOMELAB_KUBE_FETCH_SANDBOX set, the stack also asks the node caches to fetch `site` into that Sandbox
 * whenever HOMELAB_KUBE_FETCH_TRIGGER changes, waiting HOMELAB_KUBE_FETCH_BUDGET seconds at most.
 */
import { App, TerraformStack } from 'cdktf';
import type { Construct } from 'constructs';
import { KubeCluster, KubeRepo, KubeRepoFetch } from '../index';

export interface KubeStackProps {
  /** @default - KUBECONFIG, else ~/.kube/config */
  readonly kubeconfig?: string;
  /** @default - the kubeconfig's current-context */
  readonly context?: string;
  /** The kubeconfig of plans. @default - kubeconfig */
  readonly readKubeconfig?: string;
  /** The context of plans. @default - context, or readKubeconfig's current-context */
  readonly readContext?: string;
  /** @default "jr2" */
  readonly namespace?: string;
  /** The site's clone url (changing it restates spec.url). @default "git@git.example:me/site.git" */
  readonly siteUrl?: string;
  /** Ask for a fetch of `site` into a Sandbox. @default - no fetch ask */
  readonly fetch?: KubeStackFetch;
}

export interface KubeStackFetch {
  /** The Sandbox that mounts `site`. */
  readonly sandbox: string;
  /** The fetch is asked again whenever this changes, e.g. a release version. */
  readonly trigger: string;
  /** @default 75 */
  readonly budgetSeconds?: number;
}

export class KubeStack extends TerraformStack {
  readonly cluster: KubeCluster;
  readonly site: KubeRepo;
  readonly docs: KubeRepo;
  readonly siteFetch?: KubeRepoFetch;

  constructor(scope: Construct, id: string, props: KubeStackProps = {}) {
    super(scope, id);
    const namespace = props.namespace ?? 'jr2';
    this.cluster = new KubeCluster(this, 'home', {
      kubeconfig: props.kubeconfig,
      context: props.context,
      readKubeconfig: props.readKubeconfig,
      readContext: props.readContext,
    });
    this.site = new KubeRepo(this, 'site', {
      cluster: this.cluster,
      namespace,
      key: 'site',
      url: props.siteUrl ?? 'git@git.example:me/site.git',
      identity: 'git.example/me/site',
      credentials: [{ match: 'git.example/', ssh: { secret: 'deploy-key-site' } }],
      // The site Repo was made by hand before this stack: take it over (README, Adoption).
      adopt: true,
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
    if (props.fetch) {
      this.siteFetch = new KubeRepoFetch(this, 'warm-site', {
        cluster: this.cluster,
        namespace,
        sandbox: props.fetch.sandbox,
        key: 'site',
        trigger: props.fetch.trigger,
        budgetSeconds: props.fetch.budgetSeconds,
      });
    }
  }
}

if (require.main === module) {
  const env = process.env;
  const app = new App();
  new KubeStack(app, 'kube', {
    kubeconfig: env.HOMELAB_KUBECONFIG || undefined,
    context: env.HOMELAB_KUBE_CONTEXT || undefined,
    readKubeconfig: env.HOMELAB_KUBE_READ_KUBECONFIG || undefined,
    readContext: env.HOMELAB_KUBE_READ_CONTEXT || undefined,
    namespace: env.HOMELAB_KUBE_NAMESPACE || undefined,
    siteUrl: env.HOMELAB_KUBE_SITE_URL || undefined,
    fetch: env.HOMELAB_KUBE_FETCH_SANDBOX
      ? {
          sandbox: env.HOMELAB_KUBE_FETCH_SANDBOX,
          trigger: env.HOMELAB_KUBE_FETCH_TRIGGER || 'v1',
          budgetSeconds: env.HOMELAB_KUBE_FETCH_BUDGET ? Number(env.HOMELAB_KUBE_FETCH_BUDGET) : undefined,
        }
      : undefined,
  });
  app.synth();
}
