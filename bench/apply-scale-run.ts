/**
 * One terraform run of bench/apply-scale.ts with every output line stamped on arrival, and where its
 * time went: the plan (with the batch read), terraform creating the lifecycles, the batch apply's
 * handler, the rest. Without the stamps a slow apply cannot say whether terraform or the handler is slow.
 */
import { spawn } from 'node:child_process';
import { terraformBinary, terraformEnv } from '../test/support/toolchain';

export interface StampedRun {
  readonly code: number;
  readonly seconds: number;
  /** Each stdout line with the seconds since the start at which it arrived. */
  readonly lines: ReadonlyArray<readonly [number, string]>;
  readonly stderr: string;
}

/** Seconds of each phase of an apply; NaN where the output lacks the line that ends it. */
export interface ApplyPhases {
  /** Start to the `Plan:` line: init of the providers, the batch read, the plan. */
  readonly plan: number;
  /** The batch read alone (`Reading...` to `Read complete`). */
  readonly read: number;
  /** `Plan:` to the apply resource's `Creating...`: terraform creating the N lifecycles. */
  readonly lifecycles: number;
  /** The apply resource's `Creating...` to its `Creation complete`: the handler process. */
  readonly handler: number;
  /** Terraform's own figure for the apply resource (`Creation complete after Ns`), whole seconds. */
  readonly handlerReported: number;
  /** After the handler to the exit: the state written. */
  readonly rest: number;
}

/** Runs terraform in `cwd` with TF_LOG unset, so the timed run prints what a user's does. */
export const runStamped = (cwd: string, env: NodeJS.ProcessEnv, args: string[]): Promise<StampedRun> => {
  const fullEnv: NodeJS.ProcessEnv = {
    ...terraformEnv(),
    ...env,
    CHECKPOINT_DISABLE: '1',
    TF_IN_AUTOMATION: '1',
    TF_INPUT: '0',
  };
  delete fullEnv.TF_LOG;
  const started = process.hrtime.bigint();
  const now = () => Number(process.hrtime.bigint() - started) / 1e9;
  const child = spawn(terraformBinary(), args, { cwd, env: fullEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Array<[number, string]> = [];
  let partial = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    const at = now();
    for (const line of parts) lines.push([at, line]);
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) =>
    child.once('close', (code) => {
      if (partial !== '') lines.push([now(), partial]);
      resolve({ code: code ?? 1, seconds: now(), lines, stderr });
    }),
  );
};

/** A run that must succeed; a failure throws with the last lines terraform printed. */
export const mustSucceed = (label: string, run: StampedRun): StampedRun => {
  if (run.code === 0) return run;
  const tail = run.lines.slice(-40).map(([, line]) => line);
  throw new Error(`${label} exited ${run.code}\n${tail.join('\n')}\n${run.stderr}`);
};

/** `1m5s` (Go's duration as terraform prints it) → seconds. */
export const durationSeconds = (text: string): number => {
  const match = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s)?$/.exec(text);
  if (match === null || text === '') return NaN;
  const [, h = '0', m = '0', s = '0'] = match;
  return Number(h) * 3600 + Number(m) * 60 + Number(s);
};

const firstAt = (run: StampedRun, pattern: RegExp): number =>
  run.lines.find(([, line]) => pattern.test(line))?.[0] ?? NaN;

/** Splits an apply of a stack with one batch (`<label>_apply`) into its phases. */
export const applyPhases = (run: StampedRun): ApplyPhases => {
  const plan = firstAt(run, /^Plan: /);
  const readStart = firstAt(run, /^data\.external\.\w+_read: Reading\.\.\./);
  const readEnd = firstAt(run, /^data\.external\.\w+_read: Read complete/);
  const applyStart = firstAt(run, /^terraform_data\.\w+_apply: Creating\.\.\./);
  const applyEnd = firstAt(run, /^terraform_data\.\w+_apply: Creation complete/);
  const reported = run.lines
    .map(([, line]) => /^terraform_data\.\w+_apply: Creation complete after (\S+)/.exec(line)?.[1])
    .find((figure) => figure !== undefined);
  return {
    plan,
    read: readEnd - readStart,
    lifecycles: applyStart - plan,
    handler: applyEnd - applyStart,
    handlerReported: reported === undefined ? NaN : durationSeconds(reported),
    rest: run.seconds - applyEnd,
  };
};
