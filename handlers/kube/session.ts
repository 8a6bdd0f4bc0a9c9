/**
 * What a kube kind works with, apart from the domain that makes it: the kinds import this, the
 * domain imports the kinds, and neither loops back through the other.
 */
import type { KubeClient } from '../../src/kube/client';

/** The client and the cluster's name for messages. */
export interface KubeSession {
  readonly client: KubeClient;
  readonly cluster: string;
}
