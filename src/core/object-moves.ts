/**
 * Renames (README, Removing an object): an object the record holds that the code no longer declares, of the same
 * kind, target label and identity as one the code now declares under a new name, is the same object: its
 * construct was renamed. Its lifecycle then moves to the new name (a `moved` block), where a tombstone would have
 * deleted the object and a new lifecycle, recording the plan's read of it, refused it forever as "not created by
 * this stack" (an audit, 2026-12-05: a renamed metric server was deleted and never created again). Terraform moves
 * the lifecycle with its state, so what it recorded stays: the stack's own stays its own, a found one found.
 * Pure: the last record and what the stack declares now in, the moves out.
 */
import { canonicalJson } from './canonical';
import type { DeclaredEntry, RecordedObject, StackRecord } from './object-record';

/** What makes two entries the same object: kind, target label and identity; none without an identity. */
const sameObject = (entry: {
  readonly kind: string;
  readonly identity?: unknown;
  readonly target?: string;
  readonly label?: string;
}): string | undefined =>
  entry.identity === undefined ? undefined : canonicalJson([entry.kind, entry.target ?? entry.label, entry.identity]);

/**
 * The lifecycles to move, old name to new: those the last record moved whose new name the code still declares as
 * the same object, then each object the code no longer declares (or whose move lost its new name) paired with the
 * one new name the code declares for the same object, when the pair is the only one of that object either side.
 * A new name is one the last record does not hold, or holds as moved away: a name it holds otherwise is declared
 * again, as itself.
 */
export const objectMoves = (
  last: StackRecord | undefined,
  declared: readonly DeclaredEntry[],
): ReadonlyMap<string, string> => {
  const recorded = Object.entries(last?.objects ?? {});
  const now = new Map(declared.filter((entry) => entry.state === 'declared').map((entry) => [entry.name, entry]));
  const moves = new Map<string, string>();
  for (const [name, object] of recorded) {
    const to = object.state === 'moved' && object.movedTo !== undefined ? now.get(object.movedTo) : undefined;
    if (!now.has(name) && to !== undefined && sameObject(to) === sameObject(object)) moves.set(name, to.name);
  }
  const taken = new Set(moves.values());
  const held = new Map<string, RecordedObject>(recorded);
  const gone = recorded.filter(([name, object]) => !now.has(name) && !moves.has(name) && leaves(object));
  const fresh = [...now.values()].filter(({ name }) => {
    const before = held.get(name);
    return !taken.has(name) && (before === undefined || before.state === 'moved');
  });
  for (const [key, [from, to]] of pairs(gone, fresh)) if (key !== undefined) moves.set(from, to);
  return moves;
};

/** An entry whose lifecycle may still be in the state: declared, removed (not applied yet) or moved. */
const leaves = (object: RecordedObject): boolean => object.state !== 'forgotten';

/** By object, the one old name and the one new name it has, when it has exactly one of each. */
const pairs = (
  gone: ReadonlyArray<readonly [string, RecordedObject]>,
  fresh: readonly DeclaredEntry[],
): Map<string | undefined, [string, string]> => {
  const olds = group(gone.map(([name, object]) => [sameObject(object), name]));
  const news = group(fresh.map((entry) => [sameObject(entry), entry.name]));
  const found = new Map<string | undefined, [string, string]>();
  for (const [key, names] of olds) {
    const to = news.get(key);
    if (key !== undefined && names.length === 1 && to?.length === 1) found.set(key, [names[0]!, to[0]!]);
  }
  return found;
};

const group = (entries: ReadonlyArray<readonly [string | undefined, string]>): Map<string | undefined, string[]> => {
  const groups = new Map<string | undefined, string[]>();
  for (const [key, name] of entries) groups.set(key, [...(groups.get(key) ?? []), name]);
  return groups;
};
