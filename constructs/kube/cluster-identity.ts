/**
 * Which cluster and user a KubeCluster names, as one comparable text, for the rules that must see
 * two constructs naming the same one however they spell it. Keyed on the settings' text, the
 * one-ask-per-Sandbox rule let `<dir>/./stack.kubeconfig` and `<dir>/stack.kubeconfig`, or the
 * current context named and left unnamed, ask twice (issue 27).
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, resolve } from 'node:path';
import { expandHome } from '../../src/kube/kubeconfig';
import { tokensAsText } from '../core/encode';
import { unresolved } from '../core/validate';

interface ClusterSettings {
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly inCluster?: boolean;
}

/** The first kubeconfig file the handler reads, as kubectl picks it: the prop, KUBECONFIG, ~/.kube/config. */
const kubeconfigFile = (kubeconfig: string | undefined): string => {
  const fromEnv = (process.env.KUBECONFIG ?? '').split(delimiter).find((file) => file !== '');
  const file = resolve(expandHome(kubeconfig ?? fromEnv ?? '~/.kube/config', homedir()));
  return existsSync(file) ? realpathSync(file) : file;
};

// current-context is a top-level key of every kubeconfig kubectl writes; read without a YAML parser,
// which the constructs do not ship.
const CURRENT_CONTEXT = /^current-context:[ \t]*["']?([^"'\s#]+)/m;

const currentContext = (file: string): string | undefined => {
  try {
    return CURRENT_CONTEXT.exec(readFileSync(file, 'utf8'))?.[1];
  } catch {
    return undefined;
  }
};

/**
 * The cluster and context `settings` reach, resolved where synth can; a Terraform value stays as written (cdktf's
 * text for it), so two clusters are one only where synth knows it. An `inCluster` Terraform value is truthy: taken
 * as it is, a kubeconfig's cluster and the pod's would have been one.
 */
export const clusterIdentity = (settings: ClusterSettings): string => {
  if (unresolved(settings.inCluster)) return JSON.stringify(tokensAsText([settings.inCluster, settings.kubeconfig]));
  if (settings.inCluster === true) return JSON.stringify(['in-cluster']);
  if (unresolved(settings.kubeconfig) || unresolved(settings.context)) {
    return JSON.stringify([settings.kubeconfig, settings.context]);
  }
  const file = kubeconfigFile(settings.kubeconfig);
  return JSON.stringify([file, settings.context ?? currentContext(file) ?? '']);
};
