/**
 * The shell every handler bundle runs in. `batch read` answers the external data source for all
 * objects on one target, `batch recheck` the apply's check of those its plan read absent (batch-recheck.ts),
 * `batch apply` applies the ones its plan found drifted (the target's apply resource runs it), `batch teardown` removes
 * a target's objects in one run in a destroy of the whole state (destroy-relay/teardown.ts);
 * `<kind> <read|apply|destroy>` acts on one object, from the HOMELAB_*
 * variables the local-exec hooks set or from stdin when a human runs it. A failure is one bounded
 * stderr line and a non-zero exit, never a stack trace.
 */
import * as z from 'zod/mini';
import { readBatch } from './batch';
import { applyBatch } from './batch-apply';
import { recheckBatch } from './batch-recheck';
import { type Clock, systemClock } from './clock';
import { HandlerError } from './errors';
import type { HandlerDomain, KindContext, Log } from './kind';
import { parseAs, parseJson } from './parse';
import { printableLine } from './printable';
import { BATCH, ENV, toReadResult, VERBS, type Verb } from './protocol';
import { abandonment, nodeProcess, PARENT_CHECK_MS, type StopSignal, stopSource, watchProcess } from './stop';
import { receivedStackId } from './stack-id';
import {
  describeError,
  destroyByHand,
  destroyFromHook,
  readInWholeDestroy,
  sweepRelay,
  teardown,
  textOrValue,
} from './destroy-relay';

export interface HandlerIo {
  readonly stdin: () => Promise<string>;
  readonly env: NodeJS.ProcessEnv;
  readonly out: (text: string) => void;
  readonly log: Log;
  readonly clock?: Clock;
  /** Read by an apply between its steps (stop.ts). @default - never stops */
  readonly stop?: StopSignal;
  /** Whether a batch read runs in a destroy of the whole state. @default - told from /proc (readInWholeDestroy) */
  readonly wholeDestroy?: (env: NodeJS.ProcessEnv) => boolean;
}

/**
 * What a batch read in a destroy of the whole state answers for each object, without reading the target: the
 * destroy's plan destroys every object whatever the read says, and each hook (or the target's teardown) reads what
 * it removes itself. It saves a destroy its refresh's connection, login and reads (issue 30: 200 units' destroy
 * 5.8-6.8 s against 6.6-7.3 s, measured 2026-12-07). `terraform plan -destroy` still reads, as every plan does.
 * Short: the state keeps the read's result through the whole destroy, and Terraform rewrites the state at each
 * object's destroy (bench/HISTORY.md, Applies and destroys).
 */
const WHOLE_DESTROY_UNREAD = 'a destroy of the whole state';

/** Runs one invocation and returns the exit code; `main` is the only caller outside tests. */
export const runHandler = async <S, T, C, R>(
  domain: HandlerDomain<S, T, string, C, R>,
  argv: readonly string[],
  io: HandlerIo,
): Promise<number> => {
  const [first, verb] = argv;
  // Every line a kind or the batch apply logs may quote a server (a task log, a Status message).
  const log: Log = (line) => io.log(printableLine(line));
  const base: KindContext = { env: io.env, log, clock: io.clock ?? systemClock, ...(io.stop && { stop: io.stop }) };
  const call = invocationOf(Object.keys(domain.kinds), first, verb);
  if (call === undefined) {
    const kinds = Object.keys(domain.kinds).join('|');
    const usage = `usage: <${kinds}> <${VERBS.join('|')}>, or ${BATCH.verb} ${BATCH_VERBS.join('|')}`;
    // argv as given (a hook's kind variable, or a person's typing): shown escaped, like every line we print.
    io.log(printableLine(`${String(first ?? '')} ${String(verb ?? '')}: unknown kind or verb; ${usage}`.trim()));
    return 2;
  }
  try {
    const stack = receivedStackId(io.env[ENV.stack], ENV.stack);
    const context = stack === undefined ? base : { ...base, stack };
    if (call.batch !== undefined) {
      if (call.batch === 'teardown') return await teardown(domain, context, log);
      if (call.batch === 'apply') await applyBatch(domain, io.env, context);
      else {
        const query = parseJson(await io.stdin(), 'stdin');
        if (call.batch === 'recheck') io.out(JSON.stringify(await recheckBatch(domain, query, context)));
        else {
          await sweepRelay(io.env, context.clock);
          const unread = (io.wholeDestroy ?? readInWholeDestroy)(io.env) ? WHOLE_DESTROY_UNREAD : undefined;
          io.out(JSON.stringify(await readBatch(domain, query, context, unread)));
        }
      }
      return 0;
    }
    if (call.verb === 'destroy' && io.env[ENV.lifecycle] !== undefined) {
      return await destroyFromHook(domain, call.kind, context, log);
    }
    if (call.verb === 'destroy') {
      const { target, identity } = parseAs(oneObject, parseJson(await io.stdin(), 'stdin'), 'stdin');
      return await destroyByHand(domain, { kind: call.kind, target, identity }, context, log);
    }
    await runOne(domain, call.kind, call.verb, io, context);
    return 0;
  } catch (error) {
    io.log(`${first} ${verb}: ${describeError(error)}`);
    return 1;
  }
};

/** `batch teardown`: a target's objects in one run, in a destroy of the whole state (destroy-relay/teardown.ts). */
const BATCH_VERBS = ['read', 'recheck', 'apply', 'teardown'] as const;
type BatchVerb = (typeof BATCH_VERBS)[number];

/** What the arguments ask for: a batch, or one verb on one object of a kind the bundle serves. */
type Invocation =
  | { readonly batch: BatchVerb; readonly kind?: undefined; readonly verb?: undefined }
  | { readonly batch?: undefined; readonly kind: string; readonly verb: Verb };

const invocationOf = (kinds: readonly string[], first?: string, verb?: string): Invocation | undefined => {
  if (first === BATCH.verb && BATCH_VERBS.some((known) => known === verb)) return { batch: verb as BatchVerb };
  return first !== undefined && kinds.includes(first) && isVerb(verb) ? { kind: first, verb } : undefined;
};

const isVerb = (verb: string | undefined): verb is Verb => VERBS.some((known) => known === verb);

const oneObject = z.object({ target: z.unknown(), spec: z.optional(z.unknown()), identity: z.optional(z.unknown()) });

/** One object's read or apply: by hand from stdin (`{"target":…,"spec":…}`), or from the resend hook's env. */
const runOne = async <S, T, C, R>(
  domain: HandlerDomain<S, T, string, C, R>,
  kindName: string,
  verb: Exclude<Verb, 'destroy'>,
  io: HandlerIo,
  context: KindContext,
) => {
  const raw: { target: unknown; spec?: unknown } =
    verb === 'apply' && io.env[ENV.target] !== undefined
      ? { target: parseJson(io.env[ENV.target], ENV.target), spec: parseJson(io.env[ENV.spec], ENV.spec) }
      : parseAs(oneObject, parseJson(await io.stdin(), 'stdin'), 'stdin');
  const load = domain.kinds[kindName];
  if (load === undefined) throw new HandlerError('Unknown kind', `${kindName} is not a kind of this bundle`);
  const target = parseAs(domain.target, textOrValue(raw.target, 'target'), 'target');
  await (
    await load()
  ).open(async (kind) => {
    // Parsed before connecting: an input the kind refuses costs no connection, let alone a command.
    const parsed = parseAs(kind.spec, textOrValue(raw.spec, 'spec'), 'spec');
    const session = await domain.connect(target, context, verb === 'read' ? 'read' : 'write');
    try {
      if (verb === 'read') {
        io.out(JSON.stringify(toReadResult(kind.read(parsed, await kind.fetch(session, [parsed], context), context))));
      } else await kind.apply(session, parsed, context);
    } finally {
      await domain.close(session);
    }
  });
};

/** The process entry point of a bundle. */
export const main = <S, T, C, R>(domain: HandlerDomain<S, T, string, C, R>): void => {
  const stdin = async () => {
    if (process.stdin.isTTY) return '';
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
    return Buffer.concat(chunks).toString('utf8');
  };
  const out = (s: string) => process.stdout.write(`${s}\n`);
  const log: Log = (line) => process.stderr.write(`${line}\n`);
  const argv = process.argv.slice(2);
  const stop = stopWhenAbandoned(domain, argv, log);
  // Exit as soon as the output is out: an HTTP agent keeps timers alive after it closes, and a
  // plan pays that per process. A stopped run's reader may be gone, so it exits at once.
  let ended = false;
  void runHandler(domain, argv, { stdin, env: process.env, out, log, stop }).then((code) => {
    ended = true;
    return stop.reason === undefined ? exitWhenWritten(process.stdout, code, process.exit) : process.exit(code);
  });
  process.once('beforeExit', () => (ended ? undefined : unfinished(argv, log)));
};

/**
 * A run whose event loop drained before it ended: a promise nothing settles (a 101's socket taken from its
 * request did so: an audit, 2026-12-05). Node would exit 0 and Terraform record as done what never ran,
 * so it fails, saying so. A run that ended called process.exit, which emits no `beforeExit`.
 */
const unfinished = (argv: readonly string[], log: Log): void => {
  log(`${printableLine(argv.join(' '))}: ended unfinished (it was left waiting on nothing); what it did is unknown`);
  process.exit(1);
};

/**
 * Watches for terraform giving up on this process (stop.ts). An apply whose loops read the stop
 * (`stopsAtSafePoints`) stops at its next safe point; any other run (a read, a destroy, an apply of
 * a domain whose `applyAll` does not read it) exits at once when its parent is gone, and keeps
 * Node's default on SIGTERM and SIGINT: it dies, as before.
 */
const stopWhenAbandoned = <S, T, C, R>(
  domain: HandlerDomain<S, T, string, C, R>,
  argv: readonly string[],
  log: Log,
): StopSignal => {
  const { signal, stop } = stopSource();
  const proc = nodeProcess();
  const safe = argv[1] === 'apply' && (domain.stopsAtSafePoints ?? domain.applyAll === undefined);
  if (safe) {
    watchProcess(proc, (reason) => {
      if (signal.reason === undefined) log(`${argv.join(' ')}: ${reason}: stopping at the next safe point`);
      stop(reason);
    });
  } else {
    const abandoned = abandonment(proc);
    // Its reader gone, the run ends as an unhandled EPIPE ended it before, without the stack trace.
    proc.onStreamError(() => process.exit(1));
    proc.every(PARENT_CHECK_MS, () => {
      const reason = abandoned();
      if (reason === undefined) return;
      log(`${argv.join(' ')}: ${reason}: exiting now`);
      process.exit(1);
    });
  }
  return signal;
};

/**
 * Calls `exit(code)` once everything written to `stream` is out. A pipe takes 64 KiB at once and
 * Node queues the rest, which process.exit drops (measured: a 1 MB write arrives as 65,536 bytes).
 */
export const exitWhenWritten = (stream: NodeJS.WritableStream, code: number, exit: (code: number) => void): void => {
  stream.write('', () => exit(code));
};
