/**
 * A fetch ask as a stack states it: its spec and identity schemas (from its declaration, repo-fetch-fields.ts, so
 * synth and the handler boundary judge by the same rules), the merge patch that raises the ask and records which
 * trigger it was raised for, and the plan's reading of it. Without that record a plan could not tell a fetch for the
 * current trigger from one that landed for an older trigger, and would read a changed trigger as in sync. The record
 * names the stack that asked (stack-id.ts): two stacks asking one Sandbox for one key both patched it on every apply
 * (issue 27); now an ask for the same trigger is shared, and one for another trigger than another stack's last is
 * that stack's, refused unless `takeOver`.
 */
import * as z from 'zod/mini';
import { sha256Hex } from '../core/canonical';
import { groupOf } from '../core/errors';
import { identitySchema, specSchema } from '../core/fields';
import type { Reading } from '../core/kind';
import { describeVerdict, fetchedOf, mountedKeys, type Sandbox, verdict } from './fetch-verdict';
import { INSTALL_CRD, refusedAbsent } from './kube-repo';
import { askedAnnotation, CR_GROUP, SANDBOXES } from './names';
import { REPO_FETCH_FIELDS } from './repo-fetch-fields';

export const SANDBOX_TYPE = `${SANDBOXES}.${CR_GROUP}`;

/** The spec a `KubeRepoFetch` synthesizes, judged field by field by its declaration (repo-fetch-fields.ts). */
export const repoFetchSpecSchema = specSchema(REPO_FETCH_FIELDS, 'a fetch ask spec');
export type RepoFetchSpec = z.infer<typeof repoFetchSpecSchema>;

/** Nothing is destroyed; the identity only says which ask a replacement is about. */
export const repoFetchIdentitySchema = identitySchema(REPO_FETCH_FIELDS, 'a fetch ask identity');
export type RepoFetchIdentity = z.infer<typeof repoFetchIdentitySchema>;

export const sandboxesPath = (namespace: string, version: string, name?: string) =>
  `/apis/${CR_GROUP}/${version}/namespaces/${namespace}/${SANDBOXES}${name === undefined ? '' : `/${name}`}`;

export const sandboxName = (spec: Pick<RepoFetchSpec, 'namespace' | 'sandbox'>) =>
  `Sandbox ${spec.namespace}/${spec.sandbox}`;

export const sandboxTypeMissing = (cluster: string) =>
  `the Sandbox type (${SANDBOX_TYPE}) is not installed on ${cluster}`;

/** What to do about an ask the apply refuses, as the refusal and the plan's line both say it. */
export const ASK_FIXES = {
  typeMissing: INSTALL_CRD,
  absent: (cluster: string) => `create it, or set sandbox to one on ${cluster}`,
  unmounted: "add it to the Sandbox's spec.repos, or fix key",
} as const;

/** Why an ask for a key the Sandbox does not mount is refused: its token's scope is the caches its pod mounts. */
export const unmounted = (spec: RepoFetchSpec, sandbox: Sandbox): string => {
  const keys = mountedKeys(sandbox);
  const mounts = keys.length === 0 ? 'no repos' : keys.map((key) => `"${key}"`).join(', ');
  return `${sandboxName(spec)} does not mount repo "${spec.key}" (it mounts ${mounts})`;
};

/** This library's record of its last ask for `key`: the ask's stamp, its trigger's digest and the stack that asked
 * (absent in an earlier version's record). The agent reads only the ask annotation; the record is what lets a plan
 * judge the ask made for the current trigger, and tell whose it is. */
export const triggerAnnotation = (key: string): string => `fetch-trigger.${CR_GROUP}/${key}`;
export const triggerDigest = (trigger: string): string => sha256Hex(trigger).slice(0, 16);

/**
 * The merge patch that raises the ask (and its record, naming `stack` when known) and touches nothing else of the
 * Sandbox; with `resourceVersion`, the API refuses it (409) when the Sandbox changed since it was read.
 */
export const askPatch = (spec: RepoFetchSpec, asked: string, stack?: string, resourceVersion?: string) => ({
  metadata: {
    annotations: {
      [askedAnnotation(spec.key)]: asked,
      [triggerAnnotation(spec.key)]: [asked, triggerDigest(spec.trigger), ...(stack === undefined ? [] : [stack])].join(
        ' ',
      ),
    },
    ...(resourceVersion === undefined ? {} : { resourceVersion }),
  },
});

interface AskRecord {
  readonly asked: string;
  readonly digest: string;
  /** The stack that asked; undefined for an earlier version's record. */
  readonly stack?: string;
}

const recordOf = (sandbox: Sandbox, key: string): AskRecord | undefined => {
  const value = sandbox.metadata?.annotations?.[triggerAnnotation(key)] ?? '';
  const match = /^(\S+) ([0-9a-f]{16})(?: (\S+))?$/.exec(value);
  if (match === null) return undefined;
  return {
    asked: groupOf(match, 1),
    digest: groupOf(match, 2),
    ...(match[3] === undefined ? {} : { stack: match[3] }),
  };
};

/**
 * The stack whose ask the Sandbox records for `key`, when it asked for another trigger than `spec`'s: an ask of
 * this trigger would undo it (markedBy). Undefined when the record is for the same trigger (the ask is shared),
 * names no stack, or there is none.
 */
export const askedByFor = (spec: RepoFetchSpec, live: LiveSandbox): string | undefined => {
  if (typeof live === 'string') return undefined;
  const record = recordOf(live, spec.key);
  return record?.digest === triggerDigest(spec.trigger) ? undefined : record?.stack;
};

/**
 * The ask to share rather than raise another: the recorded one for the same trigger (by any stack, this one's
 * concurrent run too) that a fetch answered, or that is still unanswered and was raised less than the budget ago.
 * The agent answers that ask's stamp; a second stamp would only be a second patch for the same fetch. One a failed
 * attempt answered (stale) is asked again, as the next plan would.
 */
export const sharedAsk = (spec: RepoFetchSpec, live: Sandbox, now: number): AskRecord | undefined => {
  const record = recordOf(live, spec.key);
  if (record === undefined || record.digest !== triggerDigest(spec.trigger)) return undefined;
  if (live.metadata?.annotations?.[askedAnnotation(spec.key)] !== record.asked) return undefined;
  const answer = verdict(live, spec.key, record.asked);
  if (answer !== undefined) return 'fetched' in answer ? record : undefined;
  const asked = Date.parse(record.asked);
  return Number.isNaN(asked) || Math.abs(now - asked) >= spec.budgetSeconds * 1000 ? undefined : record;
};

/** What a Sandbox's list lookup found: the object, nothing by that name, or no Sandbox type at all. */
export type LiveSandbox = Sandbox | 'absent' | 'type-missing';

/** In sync when the Sandbox shows a fetch at or after the last ask made for the current trigger. */
export const readFetch = (spec: RepoFetchSpec, live: LiveSandbox, cluster: string): Reading => {
  // Each of these the apply refuses (fetch-ask.ts): the line says so, and the warning's footer promises nothing.
  if (live === 'type-missing') return refusedAbsent(sandboxTypeMissing(cluster), ASK_FIXES.typeMissing);
  if (live === 'absent') return refusedAbsent(`${sandboxName(spec)} does not exist`, ASK_FIXES.absent(cluster));
  if (!mountedKeys(live).includes(spec.key))
    return { ...drift(`${unmounted(spec, live)}, so the apply refuses it; ${ASK_FIXES.unmounted}`), converges: false };
  const record = recordOf(live, spec.key);
  const want = triggerDigest(spec.trigger);
  if (record?.digest !== want) {
    const summary =
      record === undefined
        ? `no fetch of repo "${spec.key}" asked for this trigger yet`
        : `the trigger changed since the last ask (${record.asked})`;
    return drift(summary, { trigger: { live: record?.digest ?? null, want } });
  }
  const answer = verdict(live, spec.key, record.asked);
  if (answer !== undefined && 'fetched' in answer) return { inSync: true, summary: 'in sync', diff: {} };
  const summary =
    answer === undefined
      ? `asked at ${record.asked}, no fetch of repo "${spec.key}" has landed since`
      : `${describeVerdict(spec.key, answer)} (asked at ${record.asked})`;
  return drift(summary, { fetched: { live: fetchedOf(live, spec.key), want: `at or after ${record.asked}` } });
};

const drift = (summary: string, diff: Reading['diff'] = {}): Reading => ({ inSync: false, summary, diff });
