/**
 * The contract between the synthesized Terraform and a handler process. Everything crossing it is
 * a string (the external provider rejects anything else), and nothing crossing it is a secret.
 */
import { canonicalJson } from './canonical';

/** What a `read` prints: the external data source's `result`. */
export interface ReadResult {
  /** "true" or "false". */
  readonly in_sync: string;
  /** One human line: what differs, "in sync", or "absent". */
  readonly summary: string;
  /** Canonical JSON of the differing non-secret fields: `{"port":{"live":8089,"want":8090}}`. */
  readonly diff: string;
}

/** One differing field. `null` stands for "unset". */
export interface FieldChange {
  readonly live: unknown;
  readonly want: unknown;
}

export type FieldDiff = Readonly<Record<string, FieldChange>>;

/** The environment variables the local-exec hooks set from `self.input`. */
export const ENV = {
  target: 'HOMELAB_TARGET',
  spec: 'HOMELAB_SPEC',
  identity: 'HOMELAB_IDENTITY',
} as const;

export const VERBS = ['read', 'apply', 'destroy'] as const;
export type Verb = (typeof VERBS)[number];

/** The read result for an object and its field diff. */
export const readResult = (summary: string, diff: FieldDiff, inSync: boolean): ReadResult => ({
  in_sync: String(inSync),
  summary,
  diff: canonicalJson(diff),
});

/** "port is 8089, want 8090; bucket is unset, want \"pve\"" */
export const describeDiff = (diff: FieldDiff): string =>
  Object.entries(diff)
    .map(([field, { live, want }]) => `${field} is ${shown(live)}, want ${shown(want)}`)
    .join('; ');

const shown = (value: unknown): string =>
  value === null || value === undefined ? 'unset' : JSON.stringify(value);
