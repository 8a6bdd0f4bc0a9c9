/**
 * The batch apply: every object of one domain on one target that the plan found not in sync,
 * applied by one process over one connection, in reference order. One object that fails does not
 * undo the others: each is reported by name with what it left, and whatever waits for it is skipped.
 * One run is one lease: it connects once, with the target's write identity, and every write and
 * every poll of a task it started goes over that session (PVE shows a task's status to its owner).
 */
import { resolveAll } from './batch-items';
import { HandlerError } from './errors';
import type { ApplyItem, ApplyOutcomes, HandlerDomain, KindContext } from './kind';
import { parseAs, parseJson } from './parse';
import { mapConcurrent } from './pool';
import { printableLine } from './printable';
import { APPLY, ENV } from './protocol';
import { Stopped, stoppedLine } from './stop';

/** Applies the drifted objects named in `env`; throws one error naming every object not applied. */
export const applyBatch = async <S, T, C, R>(
  domain: HandlerDomain<S, T, string, C, R>,
  env: NodeJS.ProcessEnv,
  context: KindContext,
): Promise<void> => {
  const target = parseAs(domain.target, parseJson(env[ENV.target], ENV.target), 'target');
  const names = driftedNames(env[APPLY.drifted]);
  if (names.length === 0) return context.log(`${domain.describe(target)}: every object is in sync, nothing to apply`);
  const failed = new Map<string, Error>();
  const { items, refusals } = await resolveAll(domain, names, env, failed);
  const ordered = withoutBlocked(inReferenceOrder(items), failed);
  const early = context.stop?.reason;
  if (early !== undefined) for (const item of ordered) failed.set(item.name, new Stopped(early, '', ''));
  else if (ordered.length > 0) {
    const session = await domain.connect(target, context, 'write');
    try {
      const where = domain.describe(target);
      const open = new Set(ordered.map((item) => item.name));
      for (const refused of refusals) {
        for (const [name, error] of await refused(session, open, context, where)) failed.set(name, error);
      }
      const allowed = withoutBlocked(
        ordered.filter((item) => !failed.has(item.name)),
        failed,
      );
      const outcomes =
        allowed.length > 0 ? await (domain.applyAll ?? applyInOrder)(session, allowed, context) : new Map();
      for (const item of allowed) {
        const outcome = outcomes.has(item.name) ? outcomes.get(item.name) : new Error('it was not applied');
        if (outcome !== undefined) failed.set(item.name, outcome);
      }
    } finally {
      await domain.close(session);
    }
  }
  const reason = context.stop?.reason;
  if (reason !== undefined) throw stoppedRun(reason, names, failed, context);
  if (failed.size > 0) throw notApplied(domain.describe(target), names.length, failed, context);
};

/** A run stopped at a safe point: real failures keep their lines, the rest is one line (stop.ts). */
const stoppedRun = (
  reason: string,
  names: readonly string[],
  failed: ReadonlyMap<string, Error>,
  { log }: KindContext,
) => {
  const stoppedOf = (name: string) => {
    const error = failed.get(name);
    return error instanceof Stopped ? error : undefined;
  };
  const real = names.flatMap((name) => {
    const error = failed.get(name);
    return error === undefined || error instanceof Stopped ? [] : [[name, error] as const];
  });
  for (const [name, error] of real) log(`${name}: not applied: ${printableLine(messageOf(error))}`);
  const line = stoppedLine(reason, {
    applied: names.filter((name) => !failed.has(name)),
    partly: names.flatMap((name) => {
      const stopped = stoppedOf(name);
      return stopped !== undefined && stopped.done !== '' ? [[name, stopped] as const] : [];
    }),
    notStarted: names.filter((name) => stoppedOf(name)?.done === ''),
    failed: real.map(([name]) => name),
  });
  return new HandlerError('Apply stopped', line);
};

/** The names the plan found not in sync; object names are Terraform identifiers. */
const driftedNames = (text: string | undefined): string[] =>
  (text ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');

/**
 * Items with everything they come after first, keeping the given order otherwise. A name in
 * `after` that is not in the batch was in sync at plan time, so it orders nothing. A cycle cannot
 * come from the constructs; its members keep their given order.
 */
export const inReferenceOrder = <I extends { readonly name: string; readonly after: readonly string[] }>(
  items: readonly I[],
): I[] => {
  const byName = new Map(items.map((item) => [item.name, item]));
  const placed = new Set<string>();
  const ordered: I[] = [];
  const place = (item: I, path: ReadonlySet<string>) => {
    if (placed.has(item.name) || path.has(item.name)) return;
    const inPath = new Set(path).add(item.name);
    for (const before of item.after) {
      const other = byName.get(before);
      if (other !== undefined) place(other, inPath);
    }
    placed.add(item.name);
    ordered.push(item);
  };
  for (const item of items) place(item, new Set());
  return ordered;
};

/** Drops, as failed, every item that comes after one already failed (a spec that did not parse). */
const withoutBlocked = <S, C>(ordered: readonly ApplyItem<S, C>[], failed: Map<string, Error>): ApplyItem<S, C>[] =>
  ordered.filter((item) => {
    const blocker = item.after.find((name) => failed.has(name));
    if (blocker !== undefined) failed.set(item.name, waitsFor(blocker));
    return blocker === undefined;
  });

/**
 * The default: wave by wave (an item waits only for the items it comes after), each kind's items
 * of a wave `applyConcurrency` at a time; an item after one that failed is skipped.
 */
export const applyInOrder = async <S, C>(
  session: S,
  items: readonly ApplyItem<S, C>[],
  context: KindContext,
): Promise<ApplyOutcomes> => {
  const outcomes = new Map<string, Error | undefined>();
  let pending = [...items];
  while (pending.length > 0) {
    const ready = pending.filter((item) => item.after.every((name) => !pending.some((p) => p.name === name)));
    const wave = ready.length > 0 ? ready : pending.slice(0, 1);
    pending = pending.filter((item) => !wave.includes(item));
    for (const members of groupByKind(wave)) {
      await mapConcurrent(members, members[0]?.concurrency ?? 1, async (item) => {
        // A safe point: the items already started finish; the rest are not started (stop.ts).
        const reason = context.stop?.reason;
        if (reason !== undefined) return void outcomes.set(item.name, new Stopped(reason, '', ''));
        const blocker = item.after.find((name) => outcomes.get(name) !== undefined);
        outcomes.set(item.name, blocker === undefined ? await applyOne(session, item, context) : waitsFor(blocker));
      });
    }
  }
  return outcomes;
};

const applyOne = async <S, C>(session: S, item: ApplyItem<S, C>, context: KindContext): Promise<Error | undefined> => {
  let said = false;
  const log = (line: string) => {
    said = true;
    context.log(`${item.name}: ${line}`);
  };
  try {
    await item.apply(session, { ...context, log, ...(item.takeOver === true && { takeOver: true }) });
    if (!said) context.log(`${item.name}: applied`);
    return undefined;
  } catch (error) {
    return asError(error);
  }
};

/** The outcome of an item whose predecessor failed: nothing of it was done. */
export const waitsFor = (name: string): Error =>
  new Error(`it comes after ${name}, which was not applied; nothing of it was changed`);

const groupByKind = <S, C>(items: readonly ApplyItem<S, C>[]) => {
  const groups = new Map<string, Array<ApplyItem<S, C>>>();
  for (const item of items) groups.set(item.kind, [...(groups.get(item.kind) ?? []), item]);
  return groups.values();
};

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

const messageOf = (error: Error): string => (error instanceof HandlerError ? error.oneLine() : error.message);

/** Logs one line per object not applied and why (printable: it may quote a server), then the error ending the run. */
const notApplied = (
  where: string,
  total: number,
  failed: ReadonlyMap<string, Error>,
  { log }: KindContext,
): HandlerError => {
  for (const [name, error] of failed) log(`${name}: not applied: ${printableLine(messageOf(error))}`);
  const applied = total - failed.size;
  const others =
    applied === 0
      ? ''
      : applied === 1
        ? 'the other one was applied and stays so; '
        : `the other ${applied} were applied and stay so; `;
  return new HandlerError(
    `${failed.size} of ${total} objects on ${where} were not applied (${[...failed.keys()].join(', ')})`,
    `${others}each one's reason and state are in the lines above; the next apply tries them again`,
  );
};
