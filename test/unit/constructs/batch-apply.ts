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
  readonly resource: { readonly terraform_data: Record<string, { readonly triggers_replace: Record<string, string> }> };
}

/** What the handler gets under HOMELAB_OBJECT_<name>. */
export interface ParsedEntry<Spec> {
  readonly kind: string;
  readonly spec: Spec;
  readonly after?: string[];
}

const ENTRY = /^(\{.*\})\$\{try\((.*), ""\)\}$/s;
const FOUND =
  /^(.*)\$\{(try\(terraform_data\.[\w-]+_lifecycle\.input\.found, ""\)) == "" \? "" : ",\\"found\\":true"\}\}$/s;

/**
 * One object's entry in `<label>_apply.triggers_replace`: its JSON text, the pending value it ends with
 * (unknown at plan time when the object is drifted), and the expression of what its lifecycle found when
 * its ownership is kept in the state (`"found":true` then).
 */
export const entryOf = (
  synth: Synth,
  label: string,
  name: string,
): { text: string; pending: string; found?: string } => {
  const text = synth.resource.terraform_data[`${label}_apply`]?.triggers_replace[name];
  const match = ENTRY.exec(text ?? '');
  if (match === null) throw new Error(`${label}_apply has no batch trigger entry for ${name}, got ${String(text)}`);
  const found = FOUND.exec(match[1] as string);
  if (found === null) return { text: match[1] as string, pending: match[2] as string };
  return { text: `${found[1] as string}}`, pending: match[2] as string, found: found[2] as string };
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
export const recordedFound = (name: string): string => `try(terraform_data.${name}_lifecycle.input.found, "")`;

/** The query of `<label>_read` as the handler sees it: packed objects unpacked, each entry's JSON text by name. */
export const queryOf = (
  synth: { readonly data: { readonly external: Record<string, { readonly query: Record<string, string> }> } },
  label: string,
): Record<string, string> => {
  const { [BATCH.objects]: packed, ...fields } = synth.data.external[`${label}_read`]?.query ?? {};
  return { ...(packed === undefined ? {} : unpackObjects(packed, BATCH.objects)), ...fields };
};
