/**
 * A fetch ask's one declaration: every field with its doc, its rule, its default and whether the spec and the
 * identity carry it. The construct's props type, synth's prop table, the spec and identity the construct writes and
 * the handler boundary's schemas all come from `REPO_FETCH_FIELDS`, so a field cannot exist in one and not another,
 * nor a rule or default be stated twice (issue 29).
 */
import { optional, required } from '../core/fields';
import { integer, text } from '../core/rules';
import { dnsName, namespaceName, nonEmpty, versionField } from './repo-fields';

export const REPO_FETCH_FIELDS = {
  /** The Sandbox's namespace. */
  namespace: required({ rule: namespaceName, spec: true, identity: true }),
  /** The name of the Sandbox to fetch into. */
  sandbox: required({ rule: dnsName(), spec: true, identity: true }),
  /**
   * The cache key of the Repo to fetch: one of the Sandbox's `spec.repos[].key`, at most 63 characters (it is part
   * of an annotation's name). A key the Sandbox does not mount fails the apply. A stack holds one KubeRepoFetch per
   * Sandbox and key.
   */
  key: required({
    rule: text('a DNS name of at most 63 characters', /^[a-z0-9]([-a-z0-9.]{0,61}[a-z0-9])?$/),
    spec: true,
    identity: true,
  }),
  /** The Sandbox CRD's version. */
  version: versionField(),
  /**
   * Any value, such as a release version: the fetch is asked again whenever it changes. A plan reads in sync while
   * the Sandbox shows a fetch at or after the last ask made for this value.
   */
  trigger: required({ rule: nonEmpty('a non-empty string of at most 4096 characters', 4096), spec: true }),
  /**
   * How long apply waits for the verdict; past it the apply prints a stale warning and succeeds. The default is
   * the cache agent's 60 s on-demand budget plus 15 s for its verdict to reach the Sandbox (seed 004).
   */
  budgetSeconds: optional({ rule: integer(1, 3600), default: 75, spec: true }),
};
