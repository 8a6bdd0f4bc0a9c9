/**
 * Synth-time rules the kube constructs share. A required prop is checked when it is missing too: a JavaScript app
 * that left `namespace` out synthesized and failed only at plan (`Bad input: spec.namespace: Invalid input`).
 */
import type { Construct } from 'constructs';
import { cloneUrlProblem, credentialProblem, redactUrl } from '../../src/kube/clone-url';
import { check, knownText, unresolved } from '../core/validate';

/** A required string matching `pattern`; a missing one fails like a wrong one, a token is left to the handler. */
export const checkRequired = (scope: Construct, prop: string, value: unknown, pattern: RegExp, rule: string): void => {
  if (unresolved(value)) return;
  check(scope, typeof value === 'string' && pattern.test(value), prop, rule, value);
};

/** The cluster prop: a `KubeCluster` (its `target` is what the handlers get). */
export const checkCluster = (scope: Construct, cluster: unknown): void => {
  const ok =
    typeof cluster === 'object' && cluster !== null && typeof (cluster as { target?: unknown }).target === 'object';
  check(scope, ok, 'cluster', 'a KubeCluster', cluster === undefined || cluster === null ? cluster : typeof cluster);
};

/**
 * A Repo's url by the handler's own rule (clone-url.ts), shown without its credential part. A url holding a
 * Terraform value is judged on its known parts for credentials only: `https://${var.token}@host/x` is refused.
 */
export const checkCloneUrl = (scope: Construct, url: unknown): void => {
  if (typeof url !== 'string') return check(scope, false, 'url', 'a clone url', url);
  const known = unresolved(url) ? knownText(url) : url;
  if (known === undefined) return;
  const rule = known === url ? cloneUrlProblem(url) : credentialProblem(known);
  if (rule !== undefined) check(scope, false, 'url', rule, redactUrl(known).slice(0, 200));
};
