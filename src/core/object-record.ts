/**
 * The record of what each stack declared (README, Removing an object), kept beside cdktf.json and
 * committed with the code. Terraform drops a resource whose block left the code without running its
 * destroy hook; the record is how a synth knows an object was removed, so its removal can be planned.
 * Pure: the file's shape, and the next record from the last one and what the stack declares now.
 */
import * as z from 'zod/mini';

/** The file's name, in the app's working directory (beside cdktf.json). */
export const RECORD_FILE = 'cdktf-homelab.record.json';

/** The Terraform address of the lifecycle of the object recorded as `name`: its tombstone's `from`. */
export const lifecycleAddress = (name: string): string => `terraform_data.${name}_lifecycle`;

/**
 * `declared`: in the code; `forgotten`: `forget: true`, left on its target; `removed`: gone from the
 * code, deleted by the apply after (a tombstone, a no-op once the object has left the state).
 */
const objectState = z.enum(['declared', 'forgotten', 'removed']);
export type ObjectState = z.infer<typeof objectState>;

const recordedObject = z.object({
  kind: z.string(),
  /** The label the lifecycle stores as its target. */
  target: z.string(),
  state: objectState,
  /** What names the object, as its lifecycle stores it (a removed interface's node and name). */
  identity: z.optional(z.record(z.string(), z.unknown())),
  /** Its construct said `adopt: true`: a removal deletes it even when its lifecycle found it (ownership.ts). */
  adopt: z.optional(z.literal(true)),
});
export type RecordedObject = z.infer<typeof recordedObject>;

const recordedTarget = z.object({
  domain: z.string(),
  /** The handler bundle's path, for a domain of one's own. */
  bundle: z.optional(z.string()),
  /** The connection settings; null when they hold a Terraform value, which the lifecycle then stores. */
  settings: z.nullable(z.record(z.string(), z.unknown())),
});
export type RecordedTarget = z.infer<typeof recordedTarget>;

const stackRecord = z.object({
  objects: z.record(z.string(), recordedObject),
  targets: z.record(z.string(), recordedTarget),
});
export type StackRecord = z.infer<typeof stackRecord>;

const record = z.object({ stacks: z.record(z.string(), stackRecord) });
export type Record_ = z.infer<typeof record>;

/** One object the stack declares now, with its target. */
export interface DeclaredEntry {
  readonly name: string;
  readonly kind: string;
  readonly state: 'declared' | 'forgotten';
  readonly label: string;
  readonly target: RecordedTarget;
  readonly identity?: Readonly<Record<string, unknown>>;
  readonly adopt?: true;
}

/** The record in `text`; a file that is not one fails, naming it, rather than forgetting what it held. */
export const parseRecord = (text: string | undefined, file: string): Record_ => {
  if (text === undefined) return { stacks: {} };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not JSON (${(error as Error).message}): restore it from version control`, {
      cause: error,
    });
  }
  const parsed = record.safeParse(json);
  if (!parsed.success) throw new Error(`${file} is not a cdktf-homelab record: restore it from version control`);
  return parsed.data;
};

/**
 * The stack's next record: what it declares now, and every object of the last record it no longer
 * declares, as `removed` (or still `forgotten`). A target is kept while an object names it, with
 * the settings the stack gives it now, else the last known ones.
 */
export const nextStackRecord = (last: StackRecord | undefined, declared: readonly DeclaredEntry[]): StackRecord => {
  const objects: Record<string, RecordedObject> = {};
  const targets: Record<string, RecordedTarget> = {};
  for (const entry of declared) {
    const identity = entry.identity === undefined ? {} : { identity: { ...entry.identity } };
    const adopt = entry.adopt === true ? { adopt: true as const } : {};
    objects[entry.name] = { kind: entry.kind, target: entry.label, state: entry.state, ...identity, ...adopt };
    targets[entry.label] = entry.target;
  }
  for (const [name, object] of Object.entries(last?.objects ?? {})) {
    if (Object.hasOwn(objects, name)) continue;
    objects[name] = { ...object, state: object.state === 'forgotten' ? 'forgotten' : 'removed' };
    const known = last?.targets[object.target];
    if (!Object.hasOwn(targets, object.target) && known !== undefined) targets[object.target] = known;
  }
  return { objects, targets };
};

/** The objects of `stack` that the code no longer declares, by name: each gets a `removed` block. */
export const tombstones = (stack: StackRecord, declared: readonly DeclaredEntry[]): Array<[string, RecordedObject]> => {
  const names = new Set(declared.map((entry) => entry.name));
  return Object.entries(stack.objects)
    .filter(([name]) => !names.has(name))
    .sort(([a], [b]) => (a < b ? -1 : 1));
};

/** The file's text: keys sorted at every level, so a repeated synth writes the same bytes. */
export const recordText = (value: Record_): string => `${JSON.stringify(sorted(value), null, 2)}\n`;

const sorted = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sorted);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([key, item]) => [key, sorted(item)]));
};
