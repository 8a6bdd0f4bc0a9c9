/**
 * How a handler reaches a PVE cluster, defined once: the props of a `ProxmoxCluster` with their
 * rules and default (judged at synth and again at the handler boundary, so a hand-written or
 * tampered target fails naming the field), the plain-data target it synthesizes, and the API token
 * read from the environment at run time, so no secret is ever in a stack or state. A read
 * (plan) uses the read token when one is named, so a plan runs without the write token.
 */
import * as z from 'zod/mini';
import { type PropTable, propProblems, specCheck } from '../core/definition';
import { HandlerError } from '../core/errors';
import type { Role } from '../core/kind';
import { endpointProblem, isFingerprint } from '../core/http/endpoint';
import { boolean, broken, envName, integer, type Problem, type Rule, stringRecord, text } from '../core/rules';
import { type MintSettings, mintRule } from './mint-settings';
import { isRecord } from '../core/records';

export { displayFingerprint, normalizeFingerprint } from '../core/http/endpoint';

export const DEFAULT_TOKEN_ENV = 'PROXMOX_VE_API_TOKEN';

/**
 * How long one request may take, and its default. The client applies the default: a target
 * synthesized without it stays as every earlier version wrote it, or each object on the cluster
 * would read as changed in the next plan.
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
const endpointList: Rule = (value) => {
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

/** Every prop of `ProxmoxCluster`, with its rule and default. */
export const CLUSTER_PROPS = {
  endpoints: { rule: endpointList, required: true, shown: withoutCredentials },
  tokenEnv: { rule: envName, default: DEFAULT_TOKEN_ENV },
  readTokenEnv: { rule: envName },
  mint: { rule: mintRule },
  caFile: { rule: text('the path of a PEM file') },
  fingerprints: { rule: stringRecord },
  insecure: { rule: boolean },
  timeoutSeconds: { rule: integer(REQUEST_TIMEOUT.min, REQUEST_TIMEOUT.max) },
} as const satisfies PropTable;

type Props = Readonly<Record<string, unknown>>;

/** The pins and what trusts a member: each pin a SHA-256 fingerprint of an endpoint, `insecure` alone. */
const trustRules = ({ endpoints, fingerprints, caFile, insecure }: Props): Problem[] => {
  const problems: Problem[] = [];
  const pins = stringRecord(fingerprints) === undefined && isRecord(fingerprints) ? Object.entries(fingerprints) : [];
  for (const [endpoint, pin] of pins) {
    if (Array.isArray(endpoints) && !endpoints.includes(endpoint)) {
      problems.push(broken('fingerprints', 'keyed by one of the endpoints', endpoint));
    }
    const rule = 'a SHA-256 fingerprint (32 hex bytes, colons optional)';
    if (typeof pin !== 'string' || !isFingerprint(pin)) problems.push(broken(`fingerprints["${endpoint}"]`, rule, pin));
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
export const clusterRules = (props: Props): Problem[] => {
  const { endpoints, insecure } = props;
  const plain: readonly unknown[] =
    endpointList(endpoints) === undefined && insecure !== true && Array.isArray(endpoints) ? endpoints : [];
  const http = plain.find((endpoint) => typeof endpoint === 'string' && new URL(endpoint).protocol === 'http:');
  const rule = 'https:// URLs unless insecure is true (a plain http:// endpoint sends the API token in clear)';
  return [...(http === undefined ? [] : [broken('endpoints', rule, http)]), ...trustRules(props)];
};

/** The connection a `ProxmoxCluster` synthesizes. Nothing in it is secret. */
export interface PveTarget {
  /** Cluster members in order of preference, e.g. `https://n2:8006`. */
  readonly endpoints: readonly string[];
  /** The variable holding `USER@REALM!TOKENID=SECRET`: the write identity, and the read one unless split. */
  readonly tokenEnv: string;
  /** The variable holding the read identity's token, which plans and reads use instead of `tokenEnv`. */
  readonly readTokenEnv?: string;
  /** Mint a token per run for the role's user with the role's token, which then only mints (mint.ts). */
  readonly mint?: MintSettings;
  /** PEM file of the CA that signed the members' certificates. */
  readonly caFile?: string;
  /** Per-member SHA-256 certificate fingerprints, keyed by endpoint. */
  readonly fingerprints?: Readonly<Record<string, string>>;
  /** Accept any certificate. */
  readonly insecure?: boolean;
  /** How long one request may take, failover included. */
  readonly timeoutSeconds?: number;
}

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

/** The target as a handler receives it, judged by the props' rules: a tampered one fails naming the field. */
export const pveTargetSchema = z
  .object({
    endpoints: z.array(z.string()),
    tokenEnv: z.string(),
    readTokenEnv: z.optional(z.string()),
    mint: z.optional(
      z.object({
        provisionUser: z.string(),
        readUser: z.optional(z.string()),
        expireSeconds: z.optional(z.number()),
      }),
    ),
    caFile: z.optional(z.string()),
    fingerprints: z.optional(z.record(z.string(), z.string())),
    insecure: z.optional(z.boolean()),
    timeoutSeconds: z.optional(z.number()),
  })
  .check(specCheck((target) => [...propProblems('a PVE target', CLUSTER_PROPS, target), ...trustRules(target)]));
