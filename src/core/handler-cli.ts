/**
 * The shell every handler bundle runs in. `batch read` answers the external data source for all
 * objects on one target, `batch apply` applies the ones its plan found drifted (the target's apply
 * resource runs it); `<kind> <read|apply|destroy>` acts on one object, from the HOMELAB_*
 * variables the local-exec hooks set or from stdin when a human runs it. A failure is one bounded
 * stderr line and a non-zero exit, never a stack trace.
 */
import * as z from 'zod/mini';
import { readBatch } from './batch';
import { applyBatch } from './batch-apply';
import { type Clock, systemClock } from './clock';
import { HandlerError } from './errors';
import type { HandlerDomain, KindContext, Log } from './kind';
import { destroyInput } from './lifecycle-input';
import { parseAs, parseJson } from './parse';
import { printableLine } from './printable';
import { BATCH, ENV, toReadResult, VERBS, type Verb } from './protocol';

export interface HandlerIo {
  readonly stdin: () => Promise<string>;
  readonly env: NodeJS.ProcessEnv;
  readonly out: (text: string) => void;
  readonly log: Log;
  readonly clock?: Clock;
}

/** Runs one invocation and returns the exit code; `main` is the only caller outside tests. */
export const runHandler = async <S, T>(
  domain: HandlerDomain<S, T>,
  argv: readonly string[],
  io: HandlerIo,
): Promise<number> => {
  const [first, verb] = argv;
  // Every line a kind or the batch apply logs may quote a server (a task log, a Status message).
  const log: Log = (line) => io.log(printableLine(line));
  const context: KindContext = { env: io.env, log, clock: io.clock ?? systemClock };
  const isBatch = first === BATCH.verb && (verb === 'read' || verb === 'apply');
  if (!isBatch && (first === undefined || !Object.hasOwn(domain.kinds, first) || !isVerb(verb))) {
    const kinds = Object.keys(domain.kinds).join('|');
    const usage = `usage: <${kinds}> <${VERBS.join('|')}>, or ${BATCH.verb} read|apply`;
    io.log(`${String(first ?? '')} ${String(verb ?? '')}: unknown kind or verb; ${usage}`.trim());
    return 2;
  }
  try {
    if (isBatch && verb === 'apply') await applyBatch(domain, io.env, context);
    else if (isBatch) io.out(JSON.stringify(await readBatch(domain, parseJson(await io.stdin(), 'stdin'), context)));
    else await runOne(domain, first as string, verb as Verb, io, context);
    return 0;
  } catch (error) {
    io.log(`${first} ${verb}: ${describe(error)}`);
    return 1;
  }
};

const isVerb = (verb: string | undefined): verb is Verb => VERBS.includes(verb as Verb);

/** One printable line of at most 2 KiB, whatever the error carried (a server's message among it). */
const describe = (error: unknown): string =>
  printableLine(
    error instanceof HandlerError ? error.oneLine() : error instanceof Error ? error.message : String(error),
  );

const oneObject = z.object({ target: z.unknown(), spec: z.optional(z.unknown()), identity: z.optional(z.unknown()) });

/** One object's verb: by hand from stdin (`{"target":…,"spec":…}`), or from the hooks' env. */
const runOne = async <S, T>(
  domain: HandlerDomain<S, T>,
  kindName: string,
  verb: Verb,
  io: HandlerIo,
  context: KindContext,
) => {
  const objectKey = verb === 'destroy' ? 'identity' : 'spec';
  const raw: { target: unknown; spec?: unknown; identity?: unknown } =
    verb === 'destroy' && io.env[ENV.lifecycle] !== undefined
      ? destroyInput(io.env)
      : verb === 'apply' && io.env[ENV.target] !== undefined
        ? { target: parseJson(io.env[ENV.target], ENV.target), spec: parseJson(io.env[ENV.spec], ENV.spec) }
        : parseAs(oneObject, parseJson(await io.stdin(), 'stdin'), 'stdin');
  const load = domain.kinds[kindName];
  if (load === undefined) throw new HandlerError('Unknown kind', `${kindName} is not a kind of this bundle`);
  const kind = await load();
  const target = parseAs(domain.target, textOrValue(raw.target, 'target'), 'target');
  const object = textOrValue(raw[objectKey], objectKey);
  if (verb === 'destroy' && kind.destroy === undefined) {
    io.log(`${kindName}: nothing to destroy; the object stays as it is`);
    return;
  }
  // Parsed before connecting: an input the kind refuses costs no connection, let alone a command.
  const parsed = verb === 'destroy' ? parseAs(kind.identity, object, 'identity') : parseAs(kind.spec, object, 'spec');
  const session = await domain.connect(target, context, verb === 'read' ? 'read' : 'write');
  try {
    if (verb === 'read') {
      io.out(JSON.stringify(toReadResult(kind.read(parsed, await kind.fetch(session, [parsed], context), context))));
    } else if (verb === 'apply') await kind.apply(session, parsed, context);
    else await kind.destroy?.(session, parsed, context);
  } finally {
    await domain.close(session);
  }
};

/** The synthesized inputs carry JSON text; a human may also write the object inline. */
const textOrValue = (value: unknown, what: string): unknown =>
  typeof value === 'string' ? parseJson(value, what) : value === undefined ? missing(what) : value;

const missing = (what: string): never => {
  throw new HandlerError('Missing input', `${what} is required (stdin, or ${Object.values(ENV).join('/')})`);
};

/** The process entry point of a bundle. */
export const main = <S, T>(domain: HandlerDomain<S, T>): void => {
  const stdin = async () => {
    if (process.stdin.isTTY) return '';
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };
  const out = (s: string) => process.stdout.write(`${s}\n`);
  const log: Log = (line) => process.stderr.write(`${line}\n`);
  // Exit as soon as the output is out: an HTTP agent keeps timers alive after it closes, and a
  // plan pays that per process.
  void runHandler(domain, process.argv.slice(2), { stdin, env: process.env, out, log }).then((code) =>
    exitWhenWritten(process.stdout, code, process.exit),
  );
};

/**
 * Calls `exit(code)` once everything written to `stream` is out. A pipe takes 64 KiB at once and
 * Node queues the rest, which process.exit drops (measured: a 1 MB write arrives as 65,536 bytes).
 */
export const exitWhenWritten = (stream: NodeJS.WritableStream, code: number, exit: (code: number) => void): void => {
  stream.write('', () => exit(code));
};
