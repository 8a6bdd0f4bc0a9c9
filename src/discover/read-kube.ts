/**
 * Reads Kubernetes namespaces for discover, with the handlers' client and kubeconfig loading (the
 * same file-trust checks, exec plugins and TLS rules): one list of Repos per namespace.
 */
import { KubeClient } from '../kube/client';
import { reposPath } from '../kube/kube-repo';
import { connectionOf, kubeTargetSchema, targetFor } from '../kube/target';
import { parseAs } from '../core/parse';
import type { Value } from './declaration';
import type { LiveKube } from './kube';

export const readKube = async (
  props: Readonly<Record<string, unknown>>,
  namespaces: readonly string[],
  version: string,
): Promise<LiveKube> => {
  const clusterId = typeof props.context === 'string' ? props.context : 'kube';
  const target = parseAs(kubeTargetSchema, { name: clusterId, ...props }, 'target');
  // Discover only reads: it uses the read context when the cluster has one.
  const client = new KubeClient(connectionOf(targetFor(target, 'read')), { timeoutMs: target.timeoutSeconds * 1000 });
  try {
    const listed = [];
    for (const namespace of namespaces) {
      const repos = await client.listByName(reposPath(namespace, version));
      if (repos === 'type-missing') throw new Error(`the Repo type is not served in ${namespace} (${version})`);
      listed.push({ namespace, repos: [...repos.values()] });
    }
    return { cluster: props as Record<string, Value>, clusterId, version, namespaces: listed };
  } finally {
    client.close();
  }
};
