/**
 * Reads a target's batch out of a synthesized stack: one object's trigger entry in its apply
 * (`<label>_apply`) split into the JSON the hook hands the handler and the index into the batch's
 * pending local that makes the entry unknown at plan time, and the entries of its read's query,
 * packed ones unpacked.
 * A trigger of any other form fails the test that reads it.
 */
import { unpackObjects } from '../../../src/core/packed-objects';
import { BATCH } from '../../../src/core/protocol';

/** The part of `Testing.synth` output these helpers read. */
interface Synth {
  readonly resource: { readonly terraform_data: Record<string, { readonly triggers_replace: unknown }> };
  readonly locals?: Record<string, unknown>;
}

/** What the handler gets under HOMELAB_OBJECT_<name>. */
export interface ParsedEntry<Spec> {
  readonly kind: string;
  readonly spec: Spec;
  readonly after?: string[];
}

/**
 * The apply's triggers: the entries local merged with the entries found (`"found":true` before the `}`) and
 * the entries pending (target-batch.ts), written out here by hand.
 */
const triggersOf = (label: string, found: boolean): string => {
  const entries = `local.${label}_entries`;
  const open = `trimsuffix(${entries}[name], "}")`;
  if (!found)
    return `\${merge(${entries}, { for name, at in local.${label}_pending : name => "\${${entries}[name]}\${at}" })}`;
  return (
    `\${merge(${entries}, ` +
    `{ for name, found in local.${label}_recorded : name => ` +
    `"\${${open}},\\"found\\":true}\${try(local.${label}_pending[name], "")}" if found != "" }, ` +
    `{ for name, at in local.${label}_pending : name => ` +
    `"\${${open}}\${lookup(local.${label}_recorded, name, "") == "" ? "" : ",\\"found\\":true"}}\${at}" })}`
  );
};

/**
 * One object's entry in `<label>_apply.triggers_replace`: its JSON text, the pending value it ends with
 * (unknown at plan time when the object is drifted), and the expression of what its lifecycle found when
 * its ownership is kept in the state (`"found":true` then). The triggers must be exactly the batch's merge
 * over `local.<label>_entries`; an entry or a trigger of another form fails the test that reads it.
 */
export const entryOf = (
  synth: Synth,
  label: string,
  name: string,
): { text: string; pending: string; found?: string } => {
  const triggers = synth.resource.terraform_data[`${label}_apply`]?.triggers_replace;
  const recorded = synth.locals?.[`${label}_recorded`];
  if (triggers !== triggersOf(label, recorded !== undefined)) {
    throw new Error(`${label}_apply's triggers are not the batch's for-expression, got ${String(triggers)}`);
  }
  const entries = synth.locals?.[`${label}_entries`];
  const text =
    typeof entries === 'object' && entries !== null
      ? Object.entries(entries).find(([key]) => key === name)?.[1]
      : undefined;
  if (typeof text !== 'string') throw new Error(`local.${label}_entries has no entry for ${name}, got ${String(text)}`);
  const found = typeof recorded === 'string' ? recordedIn(recorded, name) : undefined;
  return { text, pending: pendingOf(label, name), ...(found === undefined ? {} : { found }) };
};

/** `name`'s expression in a `local.<label>_recorded` object constructor, when it has one. */
const recordedIn = (recorded: string, name: string): string | undefined => {
  const found = recordedFound(name);
  return recorded.includes(`"${name}" = ${found}`) ? found : undefined;
};

/** The entry parsed, for a spec known at synth. */
export const parsedEntry = <Spec = Record<string, unknown>>(
  synth: Synth,
  label: string,
  name: string,
): ParsedEntry<Spec> => JSON.parse(entryOf(synth, label, name).text);

/** The value an object's entry ends with: unknown at plan time when the batch's drifted list names it. */
export const pendingOf = (label: string, name: string): string => `local.${label}_pending["${name}"]`;

/** What `name`'s lifecycle recorded it found, for a kind whose ownership the state keeps. */
export const recordedFound = (name: string): string => {
  const input = `terraform_data.${name}_lifecycle.input`;
  return `try(regex("(?s)^(.*)\\n", ${input})[0], ${input}.found, "")`;
};

/** The query of `<label>_read` as the handler sees it: packed objects unpacked, each entry's JSON text by name. */
export const queryOf = (
  synth: { readonly data: { readonly external: Record<string, { readonly query: Record<string, string> }> } },
  label: string,
): Record<string, string> => {
  const { [BATCH.objects]: packed, ...fields } = synth.data.external[`${label}_read`]?.query ?? {};
  return { ...(packed === undefined ? {} : unpackObjects(packed, BATCH.objects)), ...fields };
};

/** The names of the batch's trigger entries: the keys of `local.<label>_entries`, checked as entryOf does. */
export const entryNames = (synth: Synth, label: string): string[] => {
  const entries = synth.locals?.[`${label}_entries`];
  const names = typeof entries === 'object' && entries !== null ? Object.keys(entries) : [];
  for (const name of names) entryOf(synth, label, name);
  return names;
};
