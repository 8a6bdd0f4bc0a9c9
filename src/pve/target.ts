/**
 * How a handler reaches a PVE cluster: the plain-data target a `ProxmoxCluster` synthesizes, and
 * the API token read from the environment at run time, so no secret is ever in a stack or state.
 */
import * as z from 'zod/mini';
import { HandlerError } from '../core/errors';
import { envName } from '../core/parse';

export { displayFingerprint, normalizeFingerprint } from '../core/http/endpoint';

export const DEFAULT_TOKEN_ENV = 'PROXMOX_VE_API_TOKEN';

/** The connection a `ProxmoxCluster` synthesizes. Nothing in it is secret. */
export interface PveTarget {
  /** Cluster members in order of preference, e.g. `https://n2:8006`. */
  readonly endpoints: readonly string[];
  /** The variable holding `USER@REALM!TOKENID=SECRET`. */
  readonly tokenEnv: string;
  /** PEM file of the CA that signed the members' certificates. */
  readonly caFile?: string;
  /** Per-member SHA-256 certificate fingerprints, keyed by endpoint. */
  readonly fingerprints?: Readonly<Record<string, string>>;
  /** Accept any certificate. */
  readonly insecure?: boolean;
  /** How long one request may take, failover included. */
  readonly timeoutSeconds?: number;
}

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

/** The target as a handler receives it, re-checked: a tampered one fails naming the field. */
export const pveTargetSchema = z.object({
  endpoints: z.array(z.string().check(z.regex(/^https?:\/\/[^\s/]+/, 'an http(s) URL'))).check(z.minLength(1)),
  tokenEnv: z._default(envName, DEFAULT_TOKEN_ENV),
  caFile: z.optional(z.string()),
  fingerprints: z.optional(
    z.record(z.string(), z.string().check(z.regex(/^([0-9A-Fa-f]{2}:?){32}$/, 'a SHA-256 fingerprint'))),
  ),
  insecure: z.optional(z.boolean()),
  timeoutSeconds: z.optional(z.number().check(z.int(), z.gte(1), z.lte(3600))),
});
