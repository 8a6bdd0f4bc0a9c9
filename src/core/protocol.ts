/**
 * The contract between the synthesized Terraform and a handler process. Everything crossing it is
 * a string (the external provider rejects anything else), and nothing crossing it is a secret.
 */
import { canonicalJson } from './canonical';
import type { FieldDiff } from './field-diff';
import { boundedDiff, printableLine } from './printable';

/** One object's reading as the external data source carries it. */
export interface ReadResult {
  /** "true" or "false". */
  readonly in_sync: string;
  /** One human line: what differs, "in sync", or "absent". */
  readonly summary: string;
  /** Canonical JSON of the differing non-secret fields: `{"port":{"live":8089,"want":8090}}`. */
  readonly diff: string;
}

export type { FieldChange, FieldDiff } from './field-diff';

/**
 * The environment variables of the local-exec hooks. A destroy hook sets its lifecycle's stored input
 * (`jsonencode(self.input)`), its target's settings and label (lifecycle-input.ts); the resend hook sets
 * target and spec.
 */
export const ENV = {
  target: 'HOMELAB_TARGET',
  targetLabel: 'HOMELAB_TARGET_LABEL',
  spec: 'HOMELAB_SPEC',
  lifecycle: 'HOMELAB_LIFECYCLE',
  adopt: 'HOMELAB_ADOPT',
  /** The object's kind: the hook's command is fixed text, and reads it as `"$HOMELAB_KIND"`. */
  kind: 'HOMELAB_KIND',
  /** The stack's identity (stack-id.ts), which the marks of its objects name: set by every hook. */
  stack: 'HOMELAB_STACK',
  /**
   * The object as the configuration declares it now, its names apart from its destroy settings: set by the hook of
   * a kind whose identity holds settings (declared-identity.ts).
   */
  declared: 'HOMELAB_DECLARED',
  /**
   * The object's lifecycle name, under which a teardown leaves its outcome (destroy-relay/teardown.ts): set by the hook
   * of an object a teardown may list; no part of the request.
   */
  object: 'HOMELAB_OBJECT',
} as const;

/**
 * A target's teardown's objects (destroy-relay/teardown.ts), in parts of at most ~48 KiB a variable (Linux takes 128
 * KiB): `HOMELAB_TEARDOWN_FIELDS_<i>`, each object by its lifecycle's name with its lifecycle's stored input and its
 * hook's own fields, from the configuration; `HOMELAB_TEARDOWN_<i>`, the sha256 of those inputs, one a line, as the
 * state holds them.
 */
export const TEARDOWN_PREFIX = 'HOMELAB_TEARDOWN_';
export const TEARDOWN_FIELDS_PREFIX = 'HOMELAB_TEARDOWN_FIELDS_';
/** The fields an object's own hook sets from the configuration that differ between objects. */
export const OBJECT_FIELDS: readonly string[] = [ENV.kind, ENV.adopt, ENV.declared];

export const VERBS = ['read', 'apply', 'destroy'] as const;
export type Verb = (typeof VERBS)[number];

/**
 * The batch read, one per (domain, target): the query holds the target under `.target`, the
 * `{"kind","spec"}` of the objects known at synth packed under `.objects` (packed-objects.ts), the
 * stack's identity under `.stack`, and
 * that of each object holding a Terraform value under its name; the result holds `<name>.in_sync`,
 * `<name>.summary`, `<name>.diff`, the batch's own `.in_sync` and `.summary` for the plan's one
 * check, and `.found` when some object exists whose kind's ownership is kept in the state
 * (ownership.ts). Object names are Terraform identifiers, so they never start with a dot.
 */
export const BATCH = {
  verb: 'batch',
  target: '.target',
  objects: '.objects',
  /** The stack's identity (stack-id.ts): whose marks are this stack's. */
  stack: '.stack',
  inSync: '.in_sync',
  summary: '.summary',
  /** The names the apply acts on, comma-separated: not in sync, or following one that is not. */
  drifted: '.drifted',
  /** "true" when no drifted object's reading says the apply will not converge it (Reading.converges), else "false". */
  converges: '.converges',
  /**
   * What the lifecycle of each object that exists records if created now, as JSON text: each text once,
   * with the names it holds for (`{"exists on …":["m1","m2"]}`, foundGroups). Absent when no object of the
   * batch exists with its ownership kept in the state.
   */
  found: '.found',
  /**
   * The objects read absent whose kind's ownership the state keeps and whose construct does not say adopt,
   * comma-separated; absent when there are none. Their lifecycles record nothing found, so the apply checks,
   * before it records them, that none appeared after the plan (`batch recheck`; README, Adoption).
   */
  absent: '.absent',
  /**
   * What the read found that decides the write of each applied object (Reading.basis), as JSON text by name;
   * absent when no such object has one. The apply gets the plan's (APPLY.basis) and refuses an object it differs for.
   */
  basis: '.basis',
  /** In a `batch recheck` query, the read's query plus the names to check: the plan's `.absent`. */
  recheck: '.recheck',
  /**
   * In the read's query, the objects of the target this plan removes whose kind's destroy may do more than remove
   * them, as JSON text by name (`{"kind","identity","adopt"}`; batch-removals.ts); absent when there are none. A read
   * says what those destroys do besides (ObjectKind.readRemovals) and judges its own objects as they leave them.
   */
  removing: '.removing',
} as const;

/**
 * The batch apply, one per (domain, target), run by the target's apply resource: the target under
 * HOMELAB_TARGET, the names of the objects its plan found not in sync under HOMELAB_DRIFTED
 * (comma-separated), and the `{"kind","spec","after","adopt","found"}` of the i-th of them under
 * HOMELAB_OBJECT_<i> (`found`: its lifecycle recorded that it existed before the stack declared it).
 * One variable per object keeps each under Linux's 128 KiB limit on one environment string
 * (MAX_ARG_STRLEN, execve(2)); numbered, since a shell drops a variable whose name holds a `-`.
 * It can go if local-exec ever feeds its command a stdin, which it does not in terraform 1.x or
 * OpenTofu 1.x.
 */
export const APPLY = {
  verb: 'batch',
  drifted: 'HOMELAB_DRIFTED',
  objectPrefix: 'HOMELAB_OBJECT_',
  /** The plan's `.absent` (BATCH): an object among them that exists at apply time appeared after the plan. */
  absent: 'HOMELAB_ABSENT',
  /** The plan's `.basis` (BATCH): what it read that decides each object's write, which its apply must still find. */
  basis: 'HOMELAB_BASIS',
} as const;

export const resultKey = (name: string, field: keyof ReadResult): string => `${name}.${field}`;

/** "port is 8089, want 8090; bucket is unset, want \"pve\"" */
export const describeDiff = (diff: FieldDiff): string =>
  Object.entries(diff)
    .map(([field, { live, want }]) => `${field} is ${shown(live)}, want ${shown(want)}`)
    .join('; ');

const shown = (value: unknown): string => (value === null || value === undefined ? 'unset' : JSON.stringify(value));

/**
 * A reading in the external data source's terms, safe to print and bounded: its summary and diff
 * carry server text (a Status message, a live URL) into the plan and the state.
 */
export const toReadResult = (reading: { inSync: boolean; summary: string; diff: FieldDiff }): ReadResult => ({
  in_sync: String(reading.inSync),
  summary: printableLine(reading.summary),
  diff: canonicalJson(boundedDiff(reading.diff)),
});

/**
 * The batch's `.found`: each found text once, printable, with the names of the objects it holds for, or
 * undefined when there is none. Objects of one target share one or two texts (ownership.ts: its place, and
 * whether the construct adopts), so 1000 metric servers in sync carry 9 kB of names where a text per object
 * added 193 kB to every state snapshot a destroy writes (measured: bench/HISTORY.md, Applies and destroys).
 */
export const foundGroups = (found: ReadonlyArray<readonly [name: string, text: string]>): string | undefined => {
  if (found.length === 0) return undefined;
  const groups = new Map<string, string[]>();
  for (const [name, text] of found) {
    const line = printableLine(text);
    const names = groups.get(line) ?? [];
    names.push(name); // not spread: objects found alike copied their list once each (20,000: 9.8 CPU-s)
    groups.set(line, names);
  }
  return canonicalJson(Object.fromEntries(groups));
};
