/**
 * What a target batch's entries say, as text and values for Terraform: each object's entry in the read's query
 * and the apply's triggers, and the apply hook's environment. Pure, so the construct that places them
 * (target-batch.ts) stays about the resources; an entry without after, adopt, takeOver or found is the text
 * earlier versions wrote, so an upgrade replaces no apply.
 */
import { APPLY, BATCH, ENV } from '../../src/core/protocol';
import { escapeTemplate } from './encode';

/**
 * `{"kind":…,"spec":…`, with `after` when the object has predecessors, `adopt` when it is true and
 * `takeOver`, and `follows` when it follows others: an entry without any is the text earlier versions
 * wrote (the apply is not replaced on upgrade). Open at its end: `closedEntry` closes it.
 */
export const entryText = (
  kind: string,
  spec: string,
  after: readonly string[],
  owner: { readonly adopt: boolean; readonly takeOver: boolean },
  follows: readonly string[] = [],
): string =>
  `{"kind":${escapeTemplate(JSON.stringify(kind))},"spec":${spec}` +
  (after.length > 0 ? `,"after":${JSON.stringify(after)}` : '') +
  (owner.adopt ? ',"adopt":true' : '') +
  (owner.takeOver ? ',"takeOver":true' : '') +
  (follows.length > 0 ? `,"follows":${escapeTemplate(JSON.stringify(follows))}` : '');

/** An entry closed: its `}`. The apply's triggers put `,"found":true` before it for an object found (triggersOf). */
export const closedEntry = (open: string): string => `${open}}`;

/**
 * `local.<label>_recorded`: each refusable object's lifecycle record (`""` for nothing) under its name. The one
 * place that names the lifecycles' records; the drifted list, the refused lines and the apply's triggers iterate
 * it in for-expressions. Measured on 1000 applied metric servers (terraform 1.11.4, fake PVE, the read answered
 * by cat, CPU-s of a clean plan, medians of 3-5 under load 6-30): each record named in each use took 4.48-5.59
 * against 3.77-4.80 for this shape (bare: 1.16-1.24); a plan from an empty state 6.10-7.61 against 5.70-6.14.
 * Indexing the map once per object in the triggers (`local.<label>_recorded["m"]`) took 23 CPU-s from an empty
 * state instead: the triggers iterate it, never index it.
 */
export const recordedLocal = (members: ReadonlyArray<{ readonly name: string; readonly found: string }>): string =>
  `\${{ ${members.map((m) => `${JSON.stringify(m.name)} = ${m.found}`).join(', ')} }}`;

/**
 * A line per object the apply would refuse whose lifecycle found it (`local.<label>_recorded`), as one template;
 * Terraform iterates the map in the order of its names.
 */
export const refusedLines = (label: string): string =>
  `\${join("\\n", [for name, found in local.${label}_recorded : "- \${name}: \${found}" if found != ""])}`;

/**
 * The apply's triggers: one entry per object, its closed text (`local.<label>_entries`) with `,"found":true`
 * before its `}` when its lifecycle found it, then made unknown at plan time when it is not in sync
 * (`local.<label>_pending`). The plan then names each object the apply acts on, and the state keeps the known
 * text, so the next plan is clean (README, How it works). timestamp() with every character replaced is the one
 * expression both binaries keep unknown at plan and resolve to "" at apply (reasoned from their docs; proved by
 * the e2e plans on each); it can go when a language function yields an unknown value of its own, which neither
 * terraform 1.x nor OpenTofu 1.x has. The entries local as it stands, merged with the entries that differ from
 * it: those found and those pending, usually few. A template per object (its text, a lookup of its record, a
 * conditional, a try of its pending value) cost a clean plan of 1000 applied metric servers 0.41 s of 3.60
 * (measured, medians of 3, load 0.5-1.5: 3.19 s this way, 2.92 s with no apply resource at all). It yields
 * the texts earlier versions wrote one by one, so an upgrade replaces no apply. Iterated, never indexed per
 * object outside a for-expression (recordedLocal).
 */
export const triggersOf = (label: string, mayRefuse: boolean): string => {
  const entries = `local.${label}_entries`;
  const open = `trimsuffix(${entries}[name], "}")`;
  if (!mayRefuse)
    return `\${merge(${entries}, { for name, at in local.${label}_pending : name => "\${${entries}[name]}\${at}" })}`;
  // The HCL text `,"found":true`, and each part of the merge: the entries found, then the entries pending.
  const foundField = `,\\"found\\":true`;
  const pendingOf = `\${try(local.${label}_pending[name], "")}`;
  const foundText = `"\${${open}}${foundField}}${pendingOf}"`;
  const foundOnes = `{ for name, found in local.${label}_recorded : name => ${foundText} if found != "" }`;
  const mark = `\${lookup(local.${label}_recorded, name, "") == "" ? "" : "${foundField}"}`;
  const pendingOnes = `{ for name, at in local.${label}_pending : name => "\${${open}}${mark}}\${at}" }`;
  return `\${merge(${entries}, ${foundOnes}, ${pendingOnes})}`;
};

/** `{follows}` when the object follows others (a query entry only: the apply's entries never carry it). */
export const followsField = (follows: readonly string[]) => (follows.length > 0 ? { follows } : {});

/** An object the apply refuses when its lifecycle found it: its ownership is in the state, no `adopt`. */
export const refusable = <M extends { readonly found?: string; readonly adopt: boolean }>(
  member: M,
): member is M & { found: string } => member.found !== undefined && !member.adopt;

/** `{adopt: true}` for an object that may be adopted, else nothing. */
export const ownerFields = (member: { readonly adopt: boolean; readonly takeOver: boolean }) => ({
  ...(member.adopt ? { adopt: true as const } : {}),
  ...(member.takeOver ? { takeOver: true as const } : {}),
});

/**
 * The apply resource's input, which only its replacement takes (ignore_changes), so each holds what its plan read:
 * the target, the drifted names, what the read found that decides their writes (`basis`: BATCH.basis, "" for
 * nothing) and, only where the state keeps ownership, those it read absent (`absent`: BATCH.absent). The read is
 * `<label>_read` (target-batch.ts).
 */
export const applyInput = (label: string, target: string, drifted: string, inState: boolean) => ({
  target,
  drifted,
  basis: `\${lookup(data.external.${label}_read.result, "${BATCH.basis}", "")}`,
  ...(inState ? { absent: `\${local.${label}_absent}` } : {}),
});

/**
 * The hook's environment: the target, the drifted names, those the plan read absent (an input only a batch
 * with ownership in the state has: APPLY.absent), what it read that decides their writes (APPLY.basis; an apply
 * an earlier version created holds none), the stack's identity (plain text by its rule, stack-id.ts) and one
 * variable per drifted object, numbered in the order of the names (a shell drops variables whose names hold a `-`).
 */
export const applyEnvironment = (stackId: string): string =>
  `\${merge({ ${ENV.target} = self.input.target, ${APPLY.drifted} = self.input.drifted, ` +
  `${APPLY.absent} = lookup(self.input, "absent", ""), ${APPLY.basis} = lookup(self.input, "basis", ""), ` +
  `${ENV.stack} = "${stackId}" }, ` +
  `{ for index, name in split(",", self.input.drifted) : format("${APPLY.objectPrefix}%d", index) => ` +
  `self.triggers_replace[name] if name != "" })}`;

/**
 * The recheck's program (batch-recheck.ts) while the plan read some object absent (`local.<label>_absent`), else
 * `sh` answering `{}`: Terraform reads a data source whose query is known at every plan, and a handler process
 * there would cost each plan a Node start (issue 30). A count of 0 instead would fail the plan whenever the read
 * is deferred to apply, its query holding a value known only then: Terraform refuses an unknown count.
 */
export const recheckProgram = (label: string, handler: string): string =>
  `\${local.${label}_absent == "" ? ["sh", "-c", "cat >/dev/null; echo {}"] : ` +
  `["node", ${JSON.stringify(handler)}, "${BATCH.verb}", "recheck"]}`;

/**
 * The recheck's query: the read's, plus the names to check, and unknown at plan time while there are some
 * (timestamp(): triggersOf), so Terraform reads it during the apply, before the lifecycles that depend on it.
 */
export const recheckQuery = (label: string, read: string): string =>
  `\${local.${label}_absent == "" ? {} : (replace(timestamp(), "/.*/", "") == "" ? ` +
  `merge(data.external.${read}.query, { "${BATCH.recheck}" = local.${label}_absent }) : {})}`;
