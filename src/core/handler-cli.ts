/**
 * The shell every handler bundle runs in: `<kind> <verb>`, input from stdin (read, or by hand) or
 * from the HOMELAB_* variables the local-exec hooks set, and one stderr line on failure, so a
 * failed plan or apply says what broke instead of printing a stack trace.
 */
import { HandlerError } from './errors';
import { ENV, type ReadResult, VERBS, type Verb } from './protocol';

/** Progress and warnings: one stderr line each, shown by `terraform apply`. */
export type Log = (line: string) => void;

/** What a handler gets: the parsed target, and the spec (read, apply) or identity (destroy). */
export interface HandlerInput {
  readonly target: Record<string, unknown>;
  readonly object: Record<string, unknown>;
}

/** One object kind's verbs. */
export interface ObjectHandler {
  read(input: HandlerInput, log: Log): Promise<ReadResult>;
  apply(input: HandlerInput, log: Log): Promise<void>;
  destroy(input: HandlerInput, log: Log): Promise<void>;
}

export type HandlerTable = Readonly<Record<string, () => Promise<ObjectHandler>>>;

/** Runs one invocation and returns the exit code; `main` is the only caller outside tests. */
export const runHandler = async (
  table: HandlerTable,
  argv: readonly string[],
  io: { stdin: () => Promise<string>; env: NodeJS.ProcessEnv; out: (s: string) => void; log: Log },
): Promise<number> => {
  const [kind, verb] = argv;
  const usage = `usage: <${Object.keys(table).join('|')}> <${VERBS.join('|')}>`;
  const load = kind === undefined ? undefined : table[kind];
  if (load === undefined || !isVerb(verb)) {
    io.log(`${kind ?? ''} ${verb ?? ''}: unknown kind or verb; ${usage}`.trim());
    return 2;
  }
  try {
    const input = parseInput(verb, io.env, verb === 'read' || !io.env[ENV.target] ? await io.stdin() : '');
    const handler = await load();
    if (verb === 'read') io.out(JSON.stringify(await handler.read(input, io.log)));
    else await handler[verb](input, io.log);
    return 0;
  } catch (error) {
    io.log(`${kind} ${verb}: ${describe(error).replace(/\s*\n\s*/g, ' ')}`);
    return 1;
  }
};

const isVerb = (verb: string | undefined): verb is Verb => VERBS.includes(verb as Verb);

const describe = (error: unknown): string =>
  error instanceof HandlerError ? error.oneLine() : error instanceof Error ? error.message : String(error);

/** Read takes the external provider's query on stdin; apply and destroy take the hooks' env. */
const parseInput = (verb: Verb, env: NodeJS.ProcessEnv, stdin: string): HandlerInput => {
  const objectKey = verb === 'destroy' ? 'identity' : 'spec';
  const source: Record<string, unknown> =
    stdin.trim() === '' ? { target: env[ENV.target], [objectKey]: env[ENV[objectKey]] } : jsonObject(stdin, 'stdin');
  return {
    target: jsonObject(source.target, 'target'),
    object: jsonObject(source[objectKey], objectKey),
  };
};

const jsonObject = (text: unknown, what: string): Record<string, unknown> => {
  if (typeof text === 'object' && text !== null && !Array.isArray(text)) return text as Record<string, unknown>;
  if (typeof text !== 'string' || text === '') {
    throw new HandlerError('Missing input', `${what} must be a JSON object (stdin, or ${Object.values(ENV).join('/')})`);
  }
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new HandlerError('Bad input', `${what} must be a JSON object, got ${text.slice(0, 40)}`);
  }
  return parsed as Record<string, unknown>;
};

/** The process entry point of a bundle. */
export const main = (table: HandlerTable): void => {
  const stdin = async () => {
    if (process.stdin.isTTY) return '';
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };
  const out = (s: string) => process.stdout.write(`${s}\n`);
  const log: Log = (line) => process.stderr.write(`${line}\n`);
  // Exit at once: undici keeps timers alive for about a second after its agents close, and a plan
  // pays that per object (measured: 1.1 s per read before, 0.2 s after). Pipe writes are
  // synchronous on Linux, so nothing printed is lost.
  void runHandler(table, process.argv.slice(2), { stdin, env: process.env, out, log }).then((code) => process.exit(code));
};
