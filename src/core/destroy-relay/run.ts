/**
 * The work of one destroy run: the hook's entry points, and the target's session shared by every object the
 * run destroys (opened at the first, closed after the last), objects that arrive together handed to the
 * domain as one batch, each object's lines kept apart so its own hook prints them. One object's failure,
 * a failed connect included, is that object's outcome; it never ends the run or leaves its session open.
 */
import { lstatSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { digestOf } from '../canonical';
import { HandlerError } from '../errors';
import type { Clock } from '../clock';
import type { DestroyItem, HandlerDomain, KindContext, Log, ObjectKind } from '../kind';
import { destroyInput } from '../lifecycle-input';
import { parseAs, parseJson } from '../parse';
import { printableLine } from '../printable';
import { isRecord } from '../records';
import { ENV } from '../protocol';
import { batched, gathering } from './batching';
import { claimedFifo, sweep } from './fifo-lead';
import { sweepSockets } from './stale-sockets';
import { localPrivateGroup } from './private-group';
import { leadHooks } from './hook-lead';
import {
  type DestroyOutcome,
  type DestroyRequest,
  type DestroyWork,
  destroyAlone,
  failed,
  relayDestroy,
} from './relay';

/** Longest socket path a relay uses: Linux takes 107 bytes, macOS 103. */
const MAX_SOCKET_PATH = 100;

/** Destroys the object of a destroy hook (its lifecycle input in the environment); returns its exit code. */
export const destroyFromHook = async <S, T, C, R>(
  domain: HandlerDomain<S, T, string, C, R>,
  kind: string,
  context: KindContext,
  log: Log,
) => {
  const dir = relayDirectory(context.env);
  // The sh hook that claimed its domain's lock exec'd this process: it leads the hooks (fifo-lead.ts).
  const claimed = dir === undefined ? undefined : claimedFifo(dir, context.env);
  if (claimed !== undefined) {
    return printed(await leadHooks(domain, kind, context, claimed, (on) => sharedDestroy(domain, context, on)), log);
  }
  if (dir !== undefined) sweep(dir); // a killed leader's lock and FIFO, a killed hook's files
  const { target, identity, kept } = destroyInput(context.env);
  if (kept !== undefined) return printed({ code: 0, lines: [`${kind}: ${kept}`] }, log);
  const adopt = context.env[ENV.adopt] === 'true' ? { adopt: true as const } : {};
  const request: DestroyRequest = { kind, target, identity, ...adopt };
  // One relay per stack too: the run's context, its stack among it, is every object's (stack-id.ts).
  const key = digestOf([Object.keys(domain.kinds), target, context.stack ?? '']);
  const socket = dir && join(dir, `${key.slice(0, 24)}.sock`);
  const lead = () => sharedDestroy(domain, context, target);
  if (socket === undefined || socket.length > MAX_SOCKET_PATH) return printed(await destroyAlone(lead(), request), log);
  return printed(await relayDestroy(request, lead, { socket, clock: context.clock }), log);
};

/** Destroys one object in a run of its own, by hand; returns its exit code. */
export const destroyByHand = async <S, T, C, R>(
  domain: HandlerDomain<S, T, string, C, R>,
  request: DestroyRequest,
  context: KindContext,
  log: Log,
): Promise<number> => printed(await destroyAlone(sharedDestroy(domain, context, request.target), request), log);

const printed = ({ code, lines }: DestroyOutcome, log: Log): number => {
  for (const line of lines) log(line);
  return code;
};

/**
 * The folder the sockets live in, `<data dir>/cdktf-homelab-relay`, or undefined when it is not this
 * user's alone (each hook then destroys alone). The data dir is Terraform's (`.terraform`, or
 * TF_DATA_DIR); one that another user may write could have the folder swapped under a hook, so it is refused,
 * and one its group may write unless that group is this user's own (private-group.ts). `make` false: undefined
 * when there is no folder yet.
 */
export const relayDirectory = (
  env: NodeJS.ProcessEnv,
  privateGroup: (gid: number) => boolean = localPrivateGroup,
  make = true,
): string | undefined => {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  const data = env.TF_DATA_DIR ?? '.terraform';
  const dir = join(data, 'cdktf-homelab-relay');
  try {
    const parent = lstatSync(data);
    const groupWrites = (parent.mode & 0o020) !== 0 && !(parent.gid === process.getgid?.() && privateGroup(parent.gid));
    const othersWrite = (parent.mode & 0o002) !== 0 || groupWrites;
    if (!parent.isDirectory() || parent.uid !== uid || othersWrite) return undefined;
    if (make) mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    // Not `instanceof Error`: a node:fs error may come from another realm (jest's).
    if (!isRecord(error) || error.code !== 'EEXIST') return undefined;
  }
  const own = lstatSync(dir, { throwIfNoEntry: false });
  return own?.isDirectory() && own.uid === uid && (own.mode & 0o077) === 0 ? dir : undefined;
};

/**
 * Sweeps the relay folder, when there is one, at a plan's batch read: what a destroy killed at the wrong instant
 * left there (a leader's lock and FIFO, when a Ctrl-C came during its Node start, before its handlers were set:
 * lead-signals.ts; a teardown's outcomes, when Terraform and the teardown died together; a SIGKILLed leader's
 * socket: stale-sockets.ts). A destroy's hooks sweep too, but an apply runs none; every plan and apply reads, so
 * nothing of it outlives the next one. Never makes the folder. Found by the fault campaign's `destroy-whole` rounds
 * (test/campaign).
 */
export const sweepRelay = async (env: NodeJS.ProcessEnv, clock: Clock): Promise<void> => {
  const dir = relayDirectory(env, localPrivateGroup, false);
  if (dir === undefined) return;
  sweep(dir);
  await sweepSockets(dir, clock);
};

/** One request of a destroy batch: the lines its hook prints, and why it failed, once it did. */
interface Pending {
  readonly request: DestroyRequest;
  readonly lines: string[];
  failure?: { readonly error: unknown };
}

/**
 * One run's destroys on `target`: the session opens at the first object and serves every later one.
 * Objects that arrive while a batch works form the next batch, handed to the domain's `destroyAll`
 * together (one stop command and one daemon-reload for a host's units) or else each to its kind's
 * destroy at once. A failed connect fails every object of its batch, and the next batch tries again.
 */
export const sharedDestroy = <S, T, C, R>(
  domain: HandlerDomain<S, T, string, C, R>,
  context: KindContext,
  target: unknown,
): DestroyWork => {
  let session: Promise<S> | undefined;
  const open = (parsed: T): Promise<S> =>
    (session ??= domain.connect(parsed, context, 'write').catch((error: unknown) => {
      session = undefined;
      throw error;
    }));
  const destroyBatch = async (requests: readonly DestroyRequest[]): Promise<DestroyOutcome[]> => {
    const pending = requests.map((request): Pending => ({ request, lines: [] }));
    const items: Array<{ entry: Pending; item: DestroyItem<S, R> }> = [];
    let parsedTarget: T | undefined;
    for (const entry of pending) {
      const own: KindContext = { ...context, log: (line) => entry.lines.push(printableLine(line)) };
      try {
        if (digestOf(entry.request.target) !== digestOf(target)) {
          throw new HandlerError('Wrong target', 'a destroy for another target reached this run; destroy again');
        }
        const checked = await checkedItem(domain, entry.request, own);
        parsedTarget ??= checked?.target;
        if (checked !== undefined) items.push({ entry, item: checked.item });
      } catch (error) {
        entry.failure = { error };
      }
    }
    if (items.length > 0 && parsedTarget !== undefined) {
      const batch = items.map(({ item }) => item);
      // The connect inside the chain: its failure is every item's, never a throw past this batch.
      const outcomes = await open(parsedTarget)
        .then((opened) => (domain.destroyAll ?? destroyEach)(opened, batch))
        .catch((error: unknown) => items.map(() => error));
      // destroyAll answers each item's outcome in the order of the batch.
      items.forEach(({ entry }, index) => {
        const error = outcomes[index];
        if (error !== undefined) entry.failure = { error };
      });
    }
    return pending.map(({ request, lines, failure }) =>
      failure === undefined ? { code: 0, lines } : failed(request, failure.error, lines),
    );
  };
  const close = async () => {
    const opened = await session?.catch(() => undefined);
    if (opened !== undefined) await domain.close(opened);
  };
  // A domain's destroyAll is one unit of work per batch: hooks Terraform starts together should share it.
  const gather = domain.destroyAll === undefined ? undefined : gathering(context.clock);
  return { destroy: batched(destroyBatch, gather), close };
};

/**
 * The request's kind, target and identity checked by their schemas, before any connection; undefined
 * for a kind with nothing to destroy (said in its lines).
 */
const checkedItem = async <S, T, C, R>(
  domain: HandlerDomain<S, T, string, C, R>,
  request: DestroyRequest,
  context: KindContext,
) => {
  const load = domain.kinds[request.kind];
  if (load === undefined) throw new HandlerError('Unknown kind', `${request.kind} is not a kind of this bundle`);
  const kind = await load();
  const target = parseAs(domain.target, textOrValue(request.target, 'target'), 'target');
  const item = kind.open((opened) => destroyItemOf(opened, request.identity, context, request.adopt === true));
  if (item === undefined) {
    context.log(`${request.kind}: nothing to destroy; the object stays as it is`);
    return undefined;
  }
  return { target, item };
};

/**
 * The destroy of one object: its identity (JSON text or the value) parsed once by the kind's schema, its
 * lines to `context`; undefined for a kind with nothing to destroy.
 */
export const destroyItemOf = <S, Spec, I, L, C, R>(
  kind: ObjectKind<S, Spec, I, L, C, R>,
  identityInput: unknown,
  context: KindContext,
  adopt: boolean,
): DestroyItem<S, R> | undefined => {
  const { destroy, removal } = kind;
  if (destroy === undefined) return undefined;
  const identity = parseAs(kind.identity, textOrValue(identityInput, 'identity'), 'identity');
  return {
    context,
    ...(adopt && { adopt }),
    destroy: (session) => destroy.call(kind, session, identity, context, adopt),
    ...(removal !== undefined && { removal: removal(identity, context, adopt) }),
  };
};

/** Removes one object by its kind's destroy: its error, or undefined once it is gone. */
export const destroyOne = <S>(session: S, item: DestroyItem<S, unknown>): Promise<Error | undefined> =>
  item.destroy(session).then(
    () => undefined,
    (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
  );

/** Each item by its kind's destroy, all at once: each one's error, or undefined once it is gone. */
export const destroyEach = <S>(
  session: S,
  items: readonly DestroyItem<S, unknown>[],
): Promise<Array<Error | undefined>> => Promise.all(items.map((item) => destroyOne(session, item)));

/** The synthesized inputs carry JSON text; a human may also write the object inline. */
export const textOrValue = (value: unknown, what: string): unknown => {
  if (typeof value === 'string') return parseJson(value, what);
  if (value !== undefined) return value;
  throw new HandlerError('Missing input', `${what} is required (stdin, or ${Object.values(ENV).join('/')})`);
};
