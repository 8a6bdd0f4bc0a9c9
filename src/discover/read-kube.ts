/**
 * Reads Kubernetes namespaces for discover, with the handlers' client and kubeconfig loading (the
 * same file-trust checks, exec plugins and TLS rules): one list of Repos per namespace, and whether
 * each https clone Secret a Repo names exists, read as the handler does (metadata only).
 */
import { KubeClient } from '../kube/client';
import { reposPath } from '../kube/kube-repo';
import { connectionOf, kubeTargetSchema, targetFor } from '../kube/target';
import { parseAs } from '../core/parse';
import type { Value } from './declaration';
import { httpsSecretsToCheck, type LiveKube } from './kube';

export const readKube = async (
  props: Readonly<Record<string, Value>>,
  namespaces: readonly string[],
  version: string,
): Promise<LiveKube> => {
  const clusterId = typeof props.context === 'string' ? props.context : 'kube';
  const target = parseAs(kubeTargetSchema, { name: clusterId, ...props }, 'target');
  // Discover only reads: it uses the read context when the cluster has one.
  const client = new KubeClient(connectionOf(targetFor(target, 'read')), { timeoutMs: target.timeoutSeconds * 1000 });
  try {
    const listed = [];
    const secrets = new Set<string>();
    for (const namespace of namespaces) {
      const repos = await client.listByName(reposPath(namespace, version));
      if (repos === 'type-missing') throw new Error(`the Repo type is not served in ${namespace} (${version})`);
      listed.push({ namespace, repos: [...repos.values()] });
      for (const name of httpsSecretsToCheck([...repos.values()])) {
        const path = `/api/v1/namespaces/${namespace}/secrets/${encodeURIComponent(name)}`;
        if (await client.exists(path, name)) secrets.add(`${namespace}/${name}`);
      }
    }
    return { cluster: props, clusterId, version, namespaces: listed, secrets };
  } finally {
    client.close();
  }
};
