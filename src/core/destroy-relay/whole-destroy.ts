/**
 * Whether this Terraform run destroys every resource in its state, told from the Terraform process's own command
 * line and its TF_CLI_ARGS variables, and which run that is (its pid and start time). A target's teardown
 * (teardown.ts) removes its objects ahead of their hooks only when this proves it: `destroy -target=…` destroys a
 * lifecycle's dependents too, the batch apply that holds the teardown among them, and a teardown that acted then
 * would remove objects the plan never named. Anything not known to leave the whole state destroyed (a plan file, a
 * `-target`, `-replace`, `-exclude`, a flag of a later version, a value in a separate argument) proves nothing: the
 * hooks then do the work. The apply is replaced at every apply that changes an object, and its destroy hook then
 * ends in sh (destroy-hook.sh), without a Node start.
 * Linux alone has /proc; elsewhere nothing is proven. Measured with terraform 1.11.4 and 1.15.9 and tofu 1.12.6
 * (2026-12-07): a local-exec command runs under `/bin/sh -c`, a child of the terraform (or tofu) process itself.
 */
import { readFileSync } from 'node:fs';

/** The Terraform process a hook runs under: its pid and its start time in clock ticks since boot. */
export interface TerraformRun {
  readonly pid: number;
  readonly start: string;
}

/** The relay folder's name for one run's outcomes: the run is never taken for a later process of the same pid. */
export const runKey = ({ pid, start }: TerraformRun): string => `${pid}.${start}`;

/** Options that leave every resource in a destroy's plan (Terraform 1.11-1.15, OpenTofu 1.12), by name. */
const HARMLESS = new Set([
  'auto-approve',
  'input',
  'lock',
  'lock-timeout',
  'no-color',
  'parallelism',
  'refresh',
  'var',
  'var-file',
  'compact-warnings',
  'json',
  'concise',
  'show-sensitive',
]);

const optionName = (arg: string): string | undefined => /^--?([a-z][a-z-]*)(=|$)/.exec(arg)?.[1];

const BARE_DESTROY = new Set(['-destroy', '--destroy']);

/** Whether each argument is an option that keeps the plan whole (a bare `-destroy` counted as such for `apply`). */
const harmless = (args: readonly string[], allowDestroy: boolean): boolean =>
  args.every((arg) => {
    const name = optionName(arg);
    return name !== undefined && (HARMLESS.has(name) || (allowDestroy && BARE_DESTROY.has(arg)));
  });

/**
 * Whether `argv` (the Terraform process's) and `env` (TF_CLI_ARGS, TF_CLI_ARGS_destroy, TF_CLI_ARGS_apply) ask to
 * destroy the whole state: `destroy`, or `apply -destroy` without a plan file, after `-chdir=` alone, every other
 * argument a harmless option.
 */
export const destroysWholeState = (argv: readonly string[], env: NodeJS.ProcessEnv): boolean => {
  const args = argv.slice(1);
  while (args[0]?.startsWith('-chdir=') === true) args.shift();
  const [command, ...rest] = args;
  const extra = (name: string) => (env[name] ?? '').split(/\s+/).filter((word) => word !== '');
  const cli = [...extra('TF_CLI_ARGS'), ...extra(`TF_CLI_ARGS_${command ?? ''}`)];
  if (command === 'destroy') return harmless([...rest, ...cli], false);
  if (command !== 'apply') return false;
  const all = [...rest, ...cli];
  return all.some((arg) => BARE_DESTROY.has(arg)) && harmless(all, true);
};

const SHELLS = new Set(['sh', 'dash', 'bash', 'busybox']);
/** `/bin/sh -c` and the sh hook sit between a hook and Terraform; a few more shells are a wrapper's. */
const MAX_HOPS = 4;

/** One /proc/<pid>/stat line: the command's name, its parent and its start time, or undefined. */
export const statFields = (line: string): { comm: string; ppid: number; start: string } | undefined => {
  const open = line.indexOf('(');
  const close = line.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const rest = line.slice(close + 2).split(' ');
  const ppid = Number(rest[1]);
  const start = rest[19];
  if (!Number.isInteger(ppid) || ppid < 1 || start === undefined || !/^[0-9]+$/.test(start)) return undefined;
  return { comm: line.slice(open + 1, close), ppid, start };
};

/**
 * The run above `pid` (this process's parent): the nearest ancestor that is not a shell, as the sh hook finds it
 * (destroy-hook.sh `run_of`); undefined without /proc.
 */
export const terraformRun = (pid: number, read = readProc): TerraformRun | undefined => {
  let at = pid;
  for (let hop = 0; hop <= MAX_HOPS; hop += 1) {
    const fields = statFields(read(at, 'stat') ?? '');
    if (fields === undefined) return undefined;
    if (!SHELLS.has(fields.comm)) return { pid: at, start: fields.start };
    at = fields.ppid;
  }
  return undefined;
};

/**
 * Whether a batch read runs in a destroy of the whole state: its parent is the external data source's provider
 * plugin, whose run (the nearest ancestor that is no shell) is Terraform (measured with terraform 1.11.4 and tofu
 * 1.12.6, 2026-12-07: the provider runs the program itself, no shell between). False without /proc.
 */
export const readInWholeDestroy = (env: NodeJS.ProcessEnv, pid = process.ppid, read = readProc): boolean => {
  const provider = statFields(read(pid, 'stat') ?? '');
  const run = provider === undefined ? undefined : terraformRun(provider.ppid, read);
  const argv = run === undefined ? undefined : runArgv(run, read);
  return argv !== undefined && destroysWholeState(argv, env);
};

/** The run's arguments, or undefined when its process is gone or another one now holds its pid. */
export const runArgv = (run: TerraformRun, read = readProc): string[] | undefined => {
  if (statFields(read(run.pid, 'stat') ?? '')?.start !== run.start) return undefined;
  const text = read(run.pid, 'cmdline');
  return text === undefined ? undefined : text.replace(/\0$/, '').split('\0');
};

/** The outcome folders (`done.<run>`, teardown.ts) among `names` whose run is over: Terraform gone, its pid reused. */
export const runsOver = (names: readonly string[], read = readProc): string[] =>
  names.filter((name) => {
    const over = /^done\.([1-9][0-9]{0,9})\.([0-9]+)$/.exec(name);
    return over !== null && runArgv({ pid: Number(over[1]), start: over[2] ?? '' }, read) === undefined;
  });

const readProc = (pid: number, file: 'stat' | 'cmdline'): string | undefined => {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined;
  }
};
