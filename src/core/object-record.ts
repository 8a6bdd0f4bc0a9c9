/**
 * The record of what each stack declared (README, Removing an object), kept beside cdktf.json and
 * committed with the code. Terraform drops a resource whose block left the code without running its
 * destroy hook; the record is how a synth knows an object was removed, so its removal can be planned.
 * Pure: the file's shape, and the next record from the last one and what the stack declares now.
 *
 * The record is input from whoever can open a pull request (issue 27: an edited kind became shell
 * text in a destroy hook, an edited endpoint received the PVE token). So it holds names only, each
 * checked here against a strict rule, and never a target's settings, a bundle path or a command: a
 * tombstone takes its handler and its target from the code (tombstones.ts).
 */
import * as z from 'zod/mini';
import { errorMessage, show } from './errors';
import { isRecord } from './records';

/** The file's name, in the app's working directory (beside cdktf.json). */
export const RECORD_FILE = 'cdktf-homelab.record.json';

/** The Terraform address of the lifecycle of the object recorded as `name`: its tombstone's `from`. */
export const lifecycleAddress = (name: string): string => `terraform_data.${name}_lifecycle`;

/** The Terraform address of the resource whose creation re-sends a write-only secret (managed-object.ts resendOn). */
export const resendAddress = (name: string): string => `terraform_data.${name}_resend`;

/** A Terraform identifier, as claimName requires of an object's name and a batch's label. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_-]{0,127}$/;
/** A kind's name: what every built-in kind looks like, and all a kind of one's own may look like. */
export const KIND_NAME = /^[a-z][a-z0-9-]{0,62}$/;

/**
 * `declared`: in the code; `forgotten`: `forget: true`, left on its target; `removed`: gone from the
 * code, deleted by the apply after (a tombstone, a no-op once the object has left the state); `moved`: its
 * construct renamed, its lifecycle moved to `movedTo` by the apply after (object-moves.ts; a no-op once moved).
 */
const objectState = z.enum(['declared', 'forgotten', 'removed', 'moved']);
export type ObjectState = z.infer<typeof objectState>;

const identifier = (says: string) => z.string().check(z.regex(IDENTIFIER, says));

/** What names an object, as its lifecycle stores it and the record keeps it. */
const recordedIdentity = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]));

const recordedObject = z.strictObject({
  kind: z.string().check(z.regex(KIND_NAME, 'must be a kind name (a-z, then a-z, 0-9 and -)')),
  /** The label the lifecycle stores as its target: the target construct's name. */
  target: identifier('must be a target label (a Terraform identifier)'),
  state: objectState,
  /** What names the object, as its lifecycle stores it (a removed interface's node and name). */
  identity: z.optional(recordedIdentity),
  /** The name a `moved` object's lifecycle moves to: the code declares it, as the same object (object-moves.ts). */
  movedTo: z.optional(identifier('must be an object name (a Terraform identifier)')),
  /**
   * Written by earlier versions when the construct said `adopt: true`, and then taken by the tombstone's
   * hook as leave to delete an object its lifecycle found: an entry given it by hand deleted what the stack
   * never owned (issue 27). Read past, no longer written: only the state proves an adoption now.
   */
  adopt: z.optional(z.literal(true)),
});
export type RecordedObject = z.infer<typeof recordedObject>;

const stackRecord = z.strictObject({
  objects: z.record(identifier('must be an object name (a Terraform identifier)'), recordedObject),
  /**
   * Earlier versions kept each target's settings and bundle here; a tombstone now takes them from the
   * code, so whatever this holds is read past and no longer written.
   */
  targets: z.optional(z.unknown()),
});
export type StackRecord = z.infer<typeof stackRecord>;

const record = z.strictObject({
  stacks: z.record(identifier('must be a stack id (a Terraform identifier)'), stackRecord),
});
export type Record_ = z.infer<typeof record>;

/** One object the stack declares now, and the label of its target. */
export interface DeclaredEntry {
  readonly name: string;
  readonly kind: string;
  readonly state: 'declared' | 'forgotten';
  readonly label: string;
  readonly identity?: Readonly<Record<string, unknown>>;
  /** Whether it declares a `_resend` resource (resendOn), which a rename moves with its lifecycle. Never recorded. */
  readonly resend?: boolean;
}

/**
 * Where JSON.parse gave up, never its quote of the text (`Unexpected token 'h', "hvs.CAESIJ"...`): whatever the
 * record's path held reaches the synth's error (record-text.ts).
 */
const jsonFault = (error: unknown): string => {
  const message = errorMessage(error);
  const where = /at position \d+(?: \(line \d+ column \d+\))?/.exec(message)?.[0];
  if (where !== undefined) return `broken ${where}`;
  return message === 'Unexpected end of JSON input' ? 'it ends too early' : 'an unexpected character';
};

/**
 * The record in `text`; a file that is not one fails, naming every entry that breaks a rule, rather
 * than forgetting what it held or acting on what it should not hold.
 */
export const parseRecord = (text: string | undefined, file: string): Record_ => {
  if (text === undefined) return { stacks: {} };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    // No cause: Node prints it with the error, and JSON.parse's message quotes the text.
    // eslint-disable-next-line preserve-caught-error
    throw new Error(`${file} is not JSON (${jsonFault(error)}): restore it from version control`);
  }
  const parsed = record.safeParse(json);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) =>
    issue.code === 'invalid_key'
      ? `${pathOf(issue.path.slice(0, -1))} key ${show(issue.path.at(-1))} ${issue.issues[0]?.message ?? 'is refused'}`
      : `${pathOf(issue.path)} ${wordsOf(issue, json)}`,
  );
  throw new Error(
    `${file} is not a cdktf-homelab record (${problems.length === 1 ? '' : `${problems.length} problems: `}` +
      `${problems.slice(0, 20).join('; ')}): restore it from version control`,
  );
};

/** The member at `key` of a parsed JSON value, undefined where there is none. */
const memberOf = (at: unknown, key: PropertyKey): unknown => {
  if (Array.isArray(at) && typeof key === 'number') return at[key];
  return isRecord(at) && typeof key === 'string' ? at[key] : undefined;
};

const pathOf = (path: readonly PropertyKey[]): string =>
  path.length === 0 ? 'the file' : path.map((key) => (typeof key === 'number' ? `[${key}]` : String(key))).join('.');

/** The issue in words, with the value it was given (escaped, cut short: the file is anyone's). */
const wordsOf = (issue: z.core.$ZodIssue, json: unknown): string => {
  const value = issue.path.reduce<unknown>(memberOf, json);
  if (issue.code === 'unrecognized_keys') return `holds unknown fields ${issue.keys.map((k) => show(k)).join(', ')}`;
  const says = issue.message.startsWith('must ') ? issue.message : `must be ${expected(issue)}`;
  return `${says}, got ${show(value)}`;
};

const expected = (issue: z.core.$ZodIssue): string =>
  issue.code === 'invalid_type'
    ? `a ${issue.expected}`
    : issue.code === 'invalid_value'
      ? `one of ${issue.values.map(String).join(', ')}`
      : 'as a record holds it';

/**
 * The stack's next record: what it declares now, and every object of the last record it no longer
 * declares, as `moved` to its new name when `moves` says so (object-moves.ts), else `removed` (or still
 * `forgotten`).
 */
export const nextStackRecord = (
  last: StackRecord | undefined,
  declared: readonly DeclaredEntry[],
  moves: ReadonlyMap<string, string> = new Map(),
): StackRecord => {
  const objects: Record<string, RecordedObject> = {};
  for (const entry of declared) {
    objects[entry.name] = { kind: entry.kind, target: entry.label, state: entry.state, ...identityOf(entry) };
  }
  for (const [name, { adopt: _readPast, movedTo: _moved, ...object }] of Object.entries(last?.objects ?? {})) {
    if (Object.hasOwn(objects, name)) continue;
    const movedTo = moves.get(name);
    objects[name] =
      movedTo !== undefined
        ? { ...object, state: 'moved', movedTo }
        : { ...object, state: object.state === 'forgotten' ? 'forgotten' : 'removed' };
  }
  return { objects };
};

/** The entry's identity as the record keeps it; one the record could not read back is a bug of its kind. */
const identityOf = (entry: DeclaredEntry): Pick<RecordedObject, 'identity'> => {
  if (entry.identity === undefined) return {};
  const parsed = z.safeParse(recordedIdentity, entry.identity);
  if (!parsed.success) throw new Error(`${entry.name}: its identity holds a value a record cannot keep`);
  return { identity: parsed.data };
};

/** The objects of `stack` the code no longer declares and that did not move, by name: each gets a `removed` block. */
export const tombstones = (stack: StackRecord, declared: readonly DeclaredEntry[]): Array<[string, RecordedObject]> => {
  const names = new Set(declared.map((entry) => entry.name));
  return Object.entries(stack.objects)
    .filter(([name, object]) => !names.has(name) && object.state !== 'moved')
    .sort(([a], [b]) => (a < b ? -1 : 1));
};

/**
 * The `moved` blocks of `stack`'s record: each moved object's lifecycle to its new name's, and its `_resend`
 * resource too when the new name declares one (`resends`, a metric server's tokenVersion): left behind, the old one
 * was destroyed and the new one created, whose creation sent the write-only token again for a rename alone. A
 * `from` the state does not hold (the old name had none) is a move Terraform ignores.
 */
export const lifecycleMoves = (
  stack: StackRecord,
  resends: ReadonlySet<string> = new Set(),
): Array<{ readonly from: string; readonly to: string }> =>
  Object.entries(stack.objects)
    .flatMap(([name, { state, movedTo }]) =>
      state === 'moved' && movedTo !== undefined
        ? [
            { from: lifecycleAddress(name), to: lifecycleAddress(movedTo) },
            ...(resends.has(movedTo) ? [{ from: resendAddress(name), to: resendAddress(movedTo) }] : []),
          ]
        : [],
    )
    .sort((a, b) => (a.from < b.from ? -1 : 1));

/** The file's text: keys sorted at every level, so a repeated synth writes the same bytes. */
export const recordText = (value: Record_): string => `${JSON.stringify(sorted(value), null, 2)}\n`;

const sorted = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sorted);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([key, item]) => [key, sorted(item)]));
};
