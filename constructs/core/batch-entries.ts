/**
 * What a target batch's entries say, as text and values for Terraform: each object's entry in the read's query
 * and the apply's triggers, and the apply hook's environment. Pure, so the construct that places them
 * (target-batch.ts) stays about the resources; an entry without after, adopt, takeOver or found is the text
 * earlier versions wrote, so an upgrade replaces no apply.
 */
import { APPLY, ENV } from '../../src/core/protocol';
import { escapeTemplate } from './encode';

/**
 * `{"kind":…,"spec":…}`, with `after` when the object has predecessors, `adopt` when it is true and
 * `found` when its lifecycle `found` it (an HCL expression), so an entry without any is the text earlier
 * versions wrote (the apply is not replaced on upgrade).
 */
export const entryText = (
  kind: string,
  spec: string,
  after: readonly string[],
  owner: { readonly adopt: boolean; readonly takeOver: boolean },
  found?: string,
  follows: readonly string[] = [],
): string =>
  `{"kind":${escapeTemplate(JSON.stringify(kind))},"spec":${spec}` +
  (after.length > 0 ? `,"after":${JSON.stringify(after)}` : '') +
  (owner.adopt ? ',"adopt":true' : '') +
  (owner.takeOver ? ',"takeOver":true' : '') +
  (found === undefined ? '' : `\${${found} == "" ? "" : ",\\"found\\":true"}`) +
  (follows.length > 0 ? `,"follows":${escapeTemplate(JSON.stringify(follows))}` : '') +
  '}';

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
 * The hook's environment: the target, the drifted names, the stack's identity (plain text by its rule,
 * stack-id.ts) and one variable per drifted object, numbered in the order of the names (a shell drops
 * variables whose names hold a `-`).
 */
export const applyEnvironment = (stackId: string): string =>
  `\${merge({ ${ENV.target} = self.input.target, ${APPLY.drifted} = self.input.drifted, ` +
  `${ENV.stack} = "${stackId}" }, ` +
  `{ for index, name in split(",", self.input.drifted) : format("${APPLY.objectPrefix}%d", index) => ` +
  `self.triggers_replace[name] if name != "" })}`;
