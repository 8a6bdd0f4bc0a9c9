/**
 * The Kubernetes domain: one client per handler process for a cluster (kubeconfig context or in-cluster, the read
 * one for a plan), shared
 * by every kube kind, and the table of kinds the bundle serves (exactly the registry's kube kinds).
 */
import type { HandlerDomain } from '../../src/core/kind';
import type { KindsOf } from '../../src/core/registry';
import { KubeClient } from '../../src/kube/client';
import { connectionOf, kubeTargetSchema, type KubeTargetWithDefaults, targetFor } from '../../src/kube/target';
import type { KubeSession } from './session';

export const kubeDomain = () =>
  ({
    target: kubeTargetSchema,
    describe: (target) => `Kubernetes cluster ${target.name}`,
    connect: async (target, _context, role) => ({
      client: new KubeClient(connectionOf(targetFor(target, role)), { timeoutMs: target.timeoutSeconds * 1000 }),
      cluster: `Kubernetes cluster ${target.name}`,
    }),
    close: async (session) => session.client.close(),
    kinds: {
      'kube-repo': async () => (await import('./kube-repo')).repoKind,
      'kube-repo-fetch': async () => (await import('./kube-repo-fetch')).repoFetchKind,
    },
  }) satisfies HandlerDomain<KubeSession, KubeTargetWithDefaults, KindsOf<'kube'>>;
