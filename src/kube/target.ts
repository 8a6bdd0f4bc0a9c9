/**
 * How a handler reaches a Kubernetes cluster: the plain-data target a `KubeCluster` synthesizes (a kubeconfig path
 * and context, or in-cluster), re-checked at the handler boundary. Paths and names only: no credential in a stack.
 */
import * as z from 'zod/mini';
import { HandlerError } from '../core/errors';
import { nodeKubeconfigIo, type KubeconfigIo, type KubeConnection } from './connection';
import { inClusterConnection } from './in-cluster';
import { loadKubeconfig } from './kubeconfig';

export interface KubeTarget {
  /** The cluster's name in messages (the construct's id). */
  readonly name: string;
  /** A kubeconfig path, `~` expanded at run time; absent = KUBECONFIG, else ~/.kube/config. */
  readonly kubeconfig?: string;
  /** Absent = the kubeconfig's current-context. */
  readonly context?: string;
  /** The service account of the pod the handler runs in. */
  readonly inCluster?: boolean;
  /** How long one request may take. */
  readonly timeoutSeconds?: number;
}

export const kubeTargetSchema: z.ZodMiniType<KubeTarget> = z.object({
  name: z.string().check(z.minLength(1), z.maxLength(253)),
  kubeconfig: z.optional(z.string().check(z.minLength(1), z.maxLength(4096))),
  context: z.optional(z.string().check(z.minLength(1), z.maxLength(253))),
  inCluster: z.optional(z.boolean()),
  timeoutSeconds: z.optional(z.number().check(z.int(), z.gte(1), z.lte(3600))),
});

/** The connection a target resolves to when a handler runs. */
export const connectionOf = (target: KubeTarget, io: KubeconfigIo = nodeKubeconfigIo()): KubeConnection => {
  if (target.inCluster && (target.kubeconfig !== undefined || target.context !== undefined)) {
    throw new HandlerError('Bad Kubernetes target', `${target.name}: inCluster excludes kubeconfig and context`);
  }
  return target.inCluster ? inClusterConnection(io) : loadKubeconfig(target, io);
};
