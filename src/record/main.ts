/**
 * `npx cdktf-homelab prune-record` (run by src/cli/main.ts): drops from cdktf-homelab.record.json the
 * tombstones whose removal an apply has done (prune.ts), asking Terraform's state, in each stack's folder
 * of the synth output, which lifecycles it still holds. Without it the record only grew, and the README
 * told users to edit the JSON by hand. Every state is read before anything is written; a state that cannot
 * be read writes nothing; the file is replaced in one rename, so it is never seen half-written.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { errorCode } from '../core/errors';
import { parseRecord, RECORD_FILE, recordText } from '../core/object-record';
import { printableLine } from '../core/printable';
import { readRecordText } from '../core/record-text';
import { replaceFile } from '../core/replace-file';
import { hasTombstones, type PrunedStack, prunedStack } from './prune';

export const PRUNE_USAGE = [
  'usage: cdktf-homelab prune-record [--stack NAME]... [--output DIR] [--dry-run]',
  '  Beside cdktf.json, where the apply runs (the same backend, after terraform init), it drops from',
  `  ${RECORD_FILE} each removed or forgotten object whose lifecycle has left the state.`,
  '  --stack NAME   only this stack (default: every stack whose record holds one)',
  '  --output DIR   the synth output (default cdktf.out); each state is read in DIR/stacks/<stack>',
  '  --dry-run      say what it would drop, write nothing',
  '  TERRAFORM_BINARY_NAME names the binary, as for cdktf deploy (default terraform).',
].join('\n');

/** The addresses `terraform state list` prints in a stack's folder. */
export type StateList = (stackDir: string) => Promise<string[]>;

/** How long a state read may take (a remote backend behind a lock or a dead network), then how long it has to stop. */
export interface StateListBounds {
  readonly answerMs: number;
  readonly stopMs: number;
}

const STATE_LIST_BOUNDS: StateListBounds = { answerMs: 120_000, stopMs: 10_000 };
/** Its output is capped: a state lists one line per resource. */
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

/**
 * `binary state list`, bounded in time and output; a failure says what the binary said last. Past its time it is
 * asked to stop (SIGTERM), then killed: Terraform catches SIGTERM and went on waiting on a backend that never
 * answered, so the 120 s bound did not hold (an audit, 2026-12-05: still waiting after 400 s).
 */
export const terraformStateList =
  (binary: string, bounds: StateListBounds = STATE_LIST_BOUNDS): StateList =>
  (dir) =>
    new Promise((resolve, reject) => {
      const options = {
        cwd: dir,
        maxBuffer: MAX_OUTPUT_BYTES,
        env: { ...process.env, TF_IN_AUTOMATION: '1', TF_INPUT: '0' },
      };
      let late = '';
      const child = execFile(binary, ['state', 'list'], options, (error, stdout, stderr) => {
        clearTimeout(stop);
        clearTimeout(kill);
        if (error === null) return resolve(stdout.split('\n').filter((line) => line.trim() !== ''));
        const why =
          late ||
          (errorCode(error) === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER'
            ? `more than ${MAX_OUTPUT_BYTES} bytes of output`
            : error.signal
              ? `killed by ${error.signal}`
              : `exit ${String(error.code)}`);
        const said = `${stderr}`.trim().split('\n').slice(-3).join(' ');
        reject(new Error(`${binary} state list in ${dir} failed (${why}): ${printableLine(said || error.message)}`));
      });
      const seconds = bounds.answerMs / 1000;
      const stop = setTimeout(() => {
        late = `no answer within ${seconds} s`;
        child.kill('SIGTERM');
      }, bounds.answerMs);
      const kill = setTimeout(() => {
        late = `no answer within ${seconds} s, and killed when it did not stop`;
        child.kill('SIGKILL');
      }, bounds.answerMs + bounds.stopMs);
    });

interface PruneOptions {
  readonly stacks: readonly string[];
  readonly output: string;
  readonly dryRun: boolean;
}

const parseArgs = (args: readonly string[]): { options: PruneOptions } | { problems: string[] } => {
  const stacks: string[] = [];
  let output = 'cdktf.out';
  let dryRun = false;
  const problems: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const flag = args[i];
    if (flag === '--dry-run') dryRun = true;
    else if (flag === '--stack' || flag === '--output') {
      const value = args[++i];
      if (value === undefined || value.startsWith('--')) problems.push(`${flag} needs a value`);
      else if (flag === '--stack') stacks.push(value);
      else output = value;
    } else problems.push(`unknown argument ${printableLine(String(flag), 80)}`);
  }
  return problems.length > 0 ? { problems } : { options: { stacks, output, dryRun } };
};

const names = (list: readonly string[]): string => printableLine(list.join(', '));

/** The stack `name` of the record as a `[name, stack]` pair, none when the record holds no such stack. */
const stackNamed = <T>(stacks: Readonly<Record<string, T>>, name: string): Array<readonly [string, T]> => {
  const stack = stacks[name];
  return stack === undefined ? [] : [[name, stack]];
};

/** `cdktf-homelab prune-record ARGS` in `cwd`: the exit code; a failure throws, and nothing was written. */
export const runPruneRecord = async (
  args: readonly string[],
  io: { readonly cwd: string; readonly stateList: StateList; readonly say: (line: string) => void },
): Promise<number> => {
  if (args.includes('--help')) {
    process.stdout.write(`${PRUNE_USAGE}\n`);
    return 0;
  }
  const parsed = parseArgs(args);
  if ('problems' in parsed) {
    for (const problem of parsed.problems) io.say(`prune-record: ${problem}`);
    process.stderr.write(`${PRUNE_USAGE}\n`);
    return 2;
  }
  const { options } = parsed;
  const path = join(io.cwd, RECORD_FILE);
  const text = readRecordText(path);
  if (text === undefined) throw new Error(`no ${RECORD_FILE} in ${io.cwd}: run it beside cdktf.json`);
  const record = parseRecord(text, path);
  const known = Object.keys(record.stacks);
  const unknown = options.stacks.filter((stack) => !known.includes(stack));
  if (unknown.length > 0) throw new Error(`no stack ${names(unknown)} in ${RECORD_FILE} (it holds ${names(known)})`);
  const stacks =
    options.stacks.length > 0
      ? options.stacks.flatMap((name) => stackNamed(record.stacks, name))
      : Object.entries(record.stacks).filter(([, stack]) => hasTombstones(stack));
  if (stacks.length === 0) {
    io.say('prune-record: no removed or forgotten object in the record; nothing to drop');
    return 0;
  }
  // A stack's id is a Terraform identifier (parseRecord): a record naming a folder elsewhere never parses.
  // Every state first: one that cannot be read leaves the whole file as it was.
  const pruned: Array<[string, PrunedStack]> = [];
  for (const [stack, stackRecord] of stacks) {
    const dir = join(io.cwd, options.output, 'stacks', stack);
    if (!existsSync(dir)) throw new Error(`${dir} does not exist: synthesize, and terraform init there, first`);
    pruned.push([stack, prunedStack(stackRecord, new Set(await io.stateList(dir)))]);
  }
  const drop = options.dryRun ? 'would drop' : 'dropped';
  for (const [stack, { record: next, dropped, waiting }] of pruned) {
    if (dropped.length > 0)
      io.say(`prune-record: ${stack}: ${drop} ${names(dropped)}: their lifecycles left the state`);
    if (waiting.length > 0) io.say(`prune-record: ${stack}: kept ${names(waiting)}: still in the state, apply first`);
    if (Object.keys(next.objects).length > 0) record.stacks[stack] = next;
    else delete record.stacks[stack];
  }
  const written = recordText(record);
  if (written === text) io.say('prune-record: nothing to drop');
  else if (options.dryRun) io.say('prune-record: --dry-run, nothing written');
  else {
    replaceFile(path, written, { keepMode: true });
    io.say(`prune-record: wrote ${RECORD_FILE}; commit it with the code`);
  }
  return 0;
};
