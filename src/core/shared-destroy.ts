/**
 * The destroy of a hook's object, through the relay (destroy-relay.ts) or alone: one session per run
 * for every object the run destroys, each object's lines kept apart so its own hook prints them. An
 * object's failure is its own outcome; the others go on, as separate hooks did.
 */
import { join } from 'node:path';
import { digestOf } from './canonical';
import { HandlerError } from './errors';
import { batched } from './coalesce';
import type { DestroyItem, HandlerDomain, KindContext, Log } from './kind';
import { destroyInput } from './lifecycle-input';
import { parseAs, parseJson } from './parse';
import { printableLine } from './printable';
import { ENV } from './protocol';
import {
  type DestroyOne,
  type DestroyOutcome,
  type DestroyRequest,
  destroyAlone,
  relayDestroy,
  relayDirectory,
} from './destroy-relay';

/** Longest socket path a relay uses: Linux takes 107 bytes, macOS 103. */
const MAX_SOCKET_PATH = 100;

/**
 * Destroys the object of a destroy hook (its lifecycle input in the environment), with the other hooks
 * of its target running at the same time when Terraform's data dir is this user's; prints the object's
 * lines through `log` and returns its exit code.
 */
export const destroyFromHook = async <S, T>(
  domain: HandlerDomain<S, T>,
  kind: string,
  context: KindContext,
  log: Log,
): Promise<number> => {
  const { target, identity, kept } = destroyInput(context.env);
  if (kept !== undefined) return printed({ code: 0, lines: [`${kind}: ${kept}`] }, log);
  const request: DestroyRequest = { kind, target, identity };
  const dir = relayDirectory(context.env);
  const socket =
    dir === undefined ? undefined : join(dir, `${digestOf([Object.keys(domain.kinds), target]).slice(0, 24)}.sock`);
  const lead = () => sharedDestroy(domain, context, target);
  return printed(
    socket === undefined || socket.length > MAX_SOCKET_PATH
      ? await destroyAlone(lead(), request)
      : await relayDestroy(request, lead, { socket, clock: context.clock }),
    log,
  );
};

/** Destroys one object in a run of its own, by hand; returns its exit code. */
export const destroyByHand = async <S, T>(
  domain: HandlerDomain<S, T>,
  request: DestroyRequest,
  context: KindContext,
  log: Log,
): Promise<number> => printed(await destroyAlone(sharedDestroy(domain, context, request.target), request), log);

const printed = ({ code, lines }: DestroyOutcome, log: Log): number => {
  for (const line of lines) log(line);
  return code;
};

/**
 * One run's destroys on `target`: the session opens at the first object and serves every later one.
 * Objects that arrive while a batch works form the next batch, handed to the domain's `destroyAll`
 * together (one stop command and one daemon-reload for a host's units) or else each to its kind's
 * destroy at once. A failed connect is the batch's failure, and the next batch tries again.
 */
export const sharedDestroy = <S, T>(
  domain: HandlerDomain<S, T>,
  context: KindContext,
  target: unknown,
): { destroy: DestroyOne; close: () => Promise<void> } => {
  let session: Promise<S> | undefined;
  const open = (parsed: T): Promise<S> =>
    (session ??= domain.connect(parsed, context, 'write').catch((error: unknown) => {
      session = undefined;
      throw error;
    }));
  const destroyBatch = async (requests: readonly DestroyRequest[]): Promise<DestroyOutcome[]> => {
    const lines = requests.map((): string[] => []);
    const failures = new Map<number, unknown>();
    const items: Array<{ at: number; item: DestroyItem<S> }> = [];
    let parsedTarget: T | undefined;
    for (const [at, request] of requests.entries()) {
      const own: KindContext = { ...context, log: (line) => lines[at]?.push(printableLine(line)) };
      try {
        if (digestOf(request.target) !== digestOf(target)) {
          throw new HandlerError('Wrong target', 'a destroy for another target reached this run; destroy again');
        }
        const checked = await checkedItem(domain, request, own);
        parsedTarget ??= checked?.target;
        if (checked !== undefined) items.push({ at, item: checked.item });
      } catch (error) {
        failures.set(at, error);
      }
    }
    if (items.length > 0 && parsedTarget !== undefined) {
      const outcomes = await destroyItems(
        domain,
        await open(parsedTarget),
        items.map(({ item }) => item),
      ).catch((error: unknown) => items.map(() => error));
      for (const [index, { at }] of items.entries()) {
        if (outcomes[index] !== undefined) failures.set(at, outcomes[index]);
      }
    }
    return requests.map((request, at) => {
      const own = lines[at] ?? [];
      if (!failures.has(at)) return { code: 0, lines: own };
      return { code: 1, lines: [...own, printableLine(`${request.kind} destroy: ${describeError(failures.get(at))}`)] };
    });
  };
  const close = async () => {
    const open = await session?.catch(() => undefined);
    if (open !== undefined) await domain.close(open);
  };
  return { destroy: batched(destroyBatch), close };
};

/**
 * The request's kind, target and identity checked by their schemas, before any connection; undefined
 * for a kind with nothing to destroy (said in its lines).
 */
const checkedItem = async <S, T>(
  domain: HandlerDomain<S, T>,
  request: DestroyRequest,
  context: KindContext,
): Promise<{ target: T; item: DestroyItem<S> } | undefined> => {
  const load = domain.kinds[request.kind];
  if (load === undefined) throw new HandlerError('Unknown kind', `${request.kind} is not a kind of this bundle`);
  const kind = await load();
  const target = parseAs(domain.target, textOrValue(request.target, 'target'), 'target');
  if (kind.destroy === undefined) {
    context.log(`${request.kind}: nothing to destroy; the object stays as it is`);
    return undefined;
  }
  const identity = parseAs(kind.identity, textOrValue(request.identity, 'identity'), 'identity');
  return { target, item: { kind, identity, context } };
};

/** The domain's `destroyAll`, or each item by its kind's destroy, all at once. */
const destroyItems = async <S, T>(
  domain: HandlerDomain<S, T>,
  session: S,
  items: readonly DestroyItem<S>[],
): Promise<ReadonlyArray<Error | undefined>> =>
  domain.destroyAll !== undefined ? domain.destroyAll(session, items) : destroyEach(session, items);

/** Each item by its kind's destroy, all at once: each one's error, or undefined once it is gone. */
export const destroyEach = <S>(session: S, items: readonly DestroyItem<S>[]): Promise<Array<Error | undefined>> =>
  Promise.all(
    items.map(({ kind, identity, context }) =>
      Promise.resolve(kind.destroy?.(session, identity, context)).then(
        () => undefined,
        (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
      ),
    ),
  );

/** The synthesized inputs carry JSON text; a human may also write the object inline. */
export const textOrValue = (value: unknown, what: string): unknown =>
  typeof value === 'string' ? parseJson(value, what) : value === undefined ? missing(what) : value;

const missing = (what: string): never => {
  throw new HandlerError('Missing input', `${what} is required (stdin, or ${Object.values(ENV).join('/')})`);
};

/** One printable line of at most 2 KiB, whatever the error carried (a server's message among it). */
export const describeError = (error: unknown): string =>
  printableLine(
    error instanceof HandlerError ? error.oneLine() : error instanceof Error ? error.message : String(error),
  );
