/**
 * How a handler reaches a PVE cluster, declared once (CLUSTER_FIELDS): each prop of a `ProxmoxCluster` with its
 * doc comment, rule and default, from which come the props type, the target it synthesizes and the handler
 * boundary's schema (a hand-written or tampered target fails naming the field); and the API token read from the
 * environment at run time, so no secret is ever in a stack or state. A read (plan) uses the read token when one is
 * named, so a plan runs without the write token.
 */
import type { Known } from '../core/definition';
import { HandlerError } from '../core/errors';
import { optional, propTableOf, required, specSchema } from '../core/fields';
import type { Role } from '../core/kind';
import { endpointProblem, isFingerprint } from '../core/http/endpoint';
import { boolean, broken, envName, integer, type Problem, type Rule, stringRecord, text } from '../core/rules';
import { targetOf, type WrittenOf } from '../core/target-fields';
import { mintRule } from './mint-settings';
import { isRecord } from '../core/records';

export { displayFingerprint, normalizeFingerprint } from '../core/http/endpoint';

export const DEFAULT_TOKEN_ENV = 'PROXMOX_VE_API_TOKEN';

/**
 * How long one request may take, and its default, which the handler boundary fills in (and the client for a
 * target from elsewhere): a target synthesized without it stays as every earlier version wrote it, or each object
 * on the cluster would read as changed in the next plan.
 */
export const REQUEST_TIMEOUT = { min: 1, max: 3600, default: 30 } as const;

const isHttpUrl = (value: unknown): value is string => {
  if (typeof value !== 'string') return false;
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
};

/** The members' URLs: a non-empty list of distinct http(s) URLs, none carrying a credential or query. */
const endpointList: Rule<readonly string[]> = (value) => {
  if (!Array.isArray(value) || value.length === 0) return 'a non-empty list';
  if (!value.every(isHttpUrl)) return 'http(s) URLs such as https://n1:8006';
  if (value.some((endpoint) => endpointProblem(endpoint, true) !== undefined)) {
    return 'URLs without user, password, query or fragment';
  }
  return new Set(value).size === value.length ? undefined : 'free of duplicates';
};

/** Endpoints as a message shows them: a user and password typed into one are never echoed. */
const withoutCredentials = (value: unknown): string =>
  JSON.stringify(value, (_, item: unknown) =>
    typeof item === 'string' ? item.replace(/^([a-z]+:\/\/)[^/@]*@/i, '$1<credentials>@') : item,
  ) ?? typeof value;

/** A ProxmoxCluster's one declaration: each prop with its doc comment, rule and default, and the target it writes. */
export const CLUSTER_FIELDS = {
  /**
   * API endpoints of the cluster members, in order of preference, e.g. `https://n2:8006`.
   *
   * A request goes to the member that last answered, then the others in this order. It moves on
   * when the request never reached a server (refused, DNS, TLS handshake, pin mismatch), and a
   * read also when a member took it but did not answer in time; an HTTP error is PVE's answer,
   * a redirect is refused, and a write is never sent twice. A plain `http://` endpoint would send
   * the API token in clear, so it needs `insecure: true`.
   */
  endpoints: required({ rule: endpointList, shown: withoutCredentials, spec: true }),
  /** Environment variable holding the API token, `USER@REALM!TOKENID=SECRET`. */
  tokenEnv: optional({ rule: envName, default: DEFAULT_TOKEN_ENV, spec: true }),
  /**
   * Environment variable holding a read-only API token, which plans and reads use; `tokenEnv`'s
   * token then serves only applies, destroys and the tasks they start, so a plan (in a pull
   * request's pipeline, say) runs with this variable alone set. README, Least privilege, lists the
   * privileges each needs.
   *
   * @default - tokenEnv: one token reads and writes
   */
  readTokenEnv: optional({ rule: envName, spec: true }),
  /**
   * Mint a PVE API token per handler run: the role's token (`readTokenEnv` for a plan, `tokenEnv`
   * for an apply) then only creates, with an expiry, a token of the role's user (`readUser`,
   * `provisionUser`) that the run makes every request with, the poll of a task it started
   * included, and removes it when the run ends, success or failure. The bootstrap token needs
   * User.Modify on a group holding that user (README, Least privilege, lists PVE's rules); the
   * new token has its user's rights (`privsep=0`).
   *
   * @default - no minting: the runs use the tokens in the variables
   */
  mint: optional({ rule: mintRule, spec: true }),
  /**
   * PEM file of the CA that signed the members' certificates, read when a handler runs.
   *
   * @default - the system's trusted CAs
   */
  caFile: optional({ rule: text('the path of a PEM file', /^[^\n\r\0]+$/), spec: true }),
  /**
   * SHA-256 certificate fingerprints, keyed by endpoint (`AA:BB:...`, as the PVE web UI shows it).
   * A pinned member is trusted by its certificate alone, self-signed or not.
   *
   * @default - no pins
   */
  fingerprints: optional({ rule: stringRecord, spec: true }),
  /**
   * Accept any certificate, and allow plain `http://` endpoints. Only for a lab: it lets anyone
   * on the path read the token.
   *
   * @default false
   */
  insecure: optional({ rule: boolean, spec: true }),
  /**
   * How long one request may take, connecting, failover and the whole answer included. A read
   * shares it between the members left to try, so a member that never answers costs only its
   * share; a write that was sent keeps all that is left.
   */
  // Not written at synth (REQUEST_TIMEOUT): a target from before it existed stays as it was.
  timeoutSeconds: optional({
    rule: integer(REQUEST_TIMEOUT.min, REQUEST_TIMEOUT.max),
    default: REQUEST_TIMEOUT.default,
    written: false,
    spec: true,
  }),
};

/** Every prop of `ProxmoxCluster`, with its rule and default: what synth and discover judge props by. */
export const CLUSTER_PROPS = propTableOf(CLUSTER_FIELDS);

type Props = Readonly<Record<string, unknown>>;

/**
 * The pins and what trusts a member: each pin a SHA-256 fingerprint of an endpoint, `insecure` alone. A value not
 * `known` yet (a Terraform value) is judged by the handler, and so is each rule that reads one.
 */
const trustRules = ({ endpoints, fingerprints, caFile, insecure }: Props, known: Known = () => true): Problem[] => {
  const problems: Problem[] = [];
  const given = stringRecord(fingerprints) === undefined && isRecord(fingerprints) && known(fingerprints);
  const pins = given ? Object.entries(fingerprints) : [];
  for (const [endpoint, pin] of pins) {
    if (Array.isArray(endpoints) && known(endpoints) && known(endpoint) && !endpoints.includes(endpoint)) {
      problems.push(broken('fingerprints', 'keyed by one of the endpoints', endpoint));
    }
    const rule = 'a SHA-256 fingerprint (32 hex bytes, colons optional)';
    if (known(pin) && (typeof pin !== 'string' || !isFingerprint(pin))) {
      problems.push(broken(`fingerprints["${endpoint}"]`, rule, pin));
    }
  }
  if (insecure === true && (caFile !== undefined || fingerprints !== undefined)) {
    problems.push(broken('insecure', 'left unset when caFile or fingerprints is given', insecure));
  }
  return problems;
};

/**
 * The rules across props at synth: the trust rules, and https unless `insecure` (the client refuses
 * a plain http:// endpoint again before any request, with its advice, for a target from elsewhere).
 */
export const clusterRules = (props: Props, known: Known = () => true): Problem[] => {
  const { endpoints, insecure } = props;
  const judged = known(insecure) && insecure !== true && Array.isArray(endpoints);
  const plain: readonly unknown[] = judged && endpointList(endpoints) === undefined ? endpoints : [];
  const http = plain.find((endpoint) => typeof endpoint === 'string' && new URL(endpoint).protocol === 'http:');
  const rule = 'https:// URLs unless insecure is true (a plain http:// endpoint sends the API token in clear)';
  return [...(http === undefined ? [] : [broken('endpoints', rule, http)]), ...trustRules(props, known)];
};

/** The connection a `ProxmoxCluster` synthesizes and a handler reads. Nothing in it is secret. */
export type PveTarget = WrittenOf<typeof CLUSTER_FIELDS>;

/** The target `props` make (`targetOf`): `known` says which values synth knows (not a Terraform value). */
export const pveTargetOf = (props: object, known?: Known): PveTarget =>
  targetOf(CLUSTER_FIELDS, 'a ProxmoxCluster', props, known);

/**
 * The target as one role connects with it: a read gets `readTokenEnv` as its only token variable
 * when one is given, so a plan never looks at the write token's variable; a write gets `tokenEnv`.
 */
export const targetFor = (target: PveTarget, role: Role): PveTarget => {
  const { readTokenEnv, ...rest } = target;
  return role === 'read' && readTokenEnv !== undefined ? { ...rest, tokenEnv: readTokenEnv } : rest;
};

const TOKEN = /^[^\s@!=]+@[^\s@!=]+![A-Za-z][A-Za-z0-9._-]*=\S+$/;

/** The `Authorization` header value, from the variable the target names. */
export const tokenHeader = (target: PveTarget, env: NodeJS.ProcessEnv): string => {
  const value = env[target.tokenEnv];
  if (value === undefined || value === '') {
    throw new HandlerError(
      'PVE API token missing',
      `environment variable ${target.tokenEnv} is not set; ` +
        'set it to USER@REALM!TOKENID=SECRET before running terraform',
    );
  }
  if (!TOKEN.test(value)) {
    throw new HandlerError(
      'PVE API token malformed',
      `${target.tokenEnv} must look like USER@REALM!TOKENID=SECRET (the value is not shown)`,
    );
  }
  return `PVEAPIToken=${value}`;
};

/**
 * The target as a handler receives it, judged by the declaration's rules with its defaults filled in: a tampered
 * one fails naming the field.
 */
export const pveTargetSchema = specSchema(CLUSTER_FIELDS, 'a PVE target', trustRules);
