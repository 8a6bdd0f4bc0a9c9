/**
 * A throwaway user project around one of our example apps: the app synthesized into its cdktf.out,
 * and real terraform in the synthesized stack folder, with the offline provider mirror.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { terraformBinary, terraformLabel, testProcessEnv } from './toolchain';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');

export interface CommandOutcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly seconds: number;
}

export class CdktfProject {
  readonly dir = mkdtempSync(join(tmpdir(), 'homelab-e2e-'));
  /** Wall seconds of each labelled step, for the issue notes. */
  readonly timings: Record<string, number> = {};

  constructor(
    private readonly app: string,
    private readonly stack: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  get stackDir(): string {
    return join(this.dir, 'cdktf.out', 'stacks', this.stack);
  }

  get statePath(): string {
    return join(this.dir, `terraform.${this.stack}.tfstate`);
  }

  /**
   * Runs the app in the project folder, which writes cdktf.out exactly as `cdktf synth` does (diffed identical)
   * in 2 s instead of 20, and on Node 24, where cdktf-cli 0.21 cannot load. The CLIs run in the package tests.
   */
  synth(appEnv: NodeJS.ProcessEnv = {}): Promise<CommandOutcome> {
    return this.exec('node', [join(ROOT, this.app)], this.dir, appEnv);
  }

  terraform(...args: string[]): Promise<CommandOutcome> {
    return this.exec(terraformBinary(), [...args], this.stackDir, { TF_IN_AUTOMATION: '1', TF_INPUT: '0' });
  }

  /** Starts terraform as a shell starts a foreground job, so `interrupt` is a Ctrl-C at the terminal. */
  startTerraform(...args: string[]): Interruptible {
    const env = { ...testProcessEnv(), ...this.env, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1', TF_INPUT: '0' };
    return startCommand(terraformBinary(), args, this.stackDir, env);
  }

  /** The package's command line (`cdktf-homelab ARGS`) in the project folder, running the test's binary. */
  cli(...args: string[]): Promise<CommandOutcome> {
    const bin = join(ROOT, 'build', 'cli', 'cdktf-homelab.js');
    return this.exec('node', [bin, ...args], this.dir, { TERRAFORM_BINARY_NAME: terraformBinary() });
  }

  /** Runs a labelled step that must succeed, recording its time. */
  async must(label: string, step: Promise<CommandOutcome>): Promise<CommandOutcome> {
    const outcome = await step;
    if (outcome.code !== 0) throw new Error(`${label} exited ${outcome.code}\n${outcome.stdout}\n${outcome.stderr}`);
    this.timings[label] = outcome.seconds;
    return outcome;
  }

  /** `plan -detailed-exitcode`: 0 clean, 2 changes; a failed plan throws. */
  async plan(label: string, ...args: string[]): Promise<CommandOutcome> {
    const outcome = await this.terraform('plan', '-detailed-exitcode', '-no-color', ...args);
    if (outcome.code === 1) throw new Error(`${label} failed\n${outcome.stdout}\n${outcome.stderr}`);
    this.timings[label] = outcome.seconds;
    return outcome;
  }

  /**
   * The objects a saved plan will apply: the names each replaced batch apply resource
   * (`<label>_apply`) gets in `input.drifted`, which are what its handler acts on.
   */
  async plannedObjects(planFile: string): Promise<string[]> {
    const shown = await this.must('show plan', this.terraform('show', '-json', planFile));
    const plan = JSON.parse(shown.stdout) as { resource_changes?: ResourceChange[] };
    const names = (plan.resource_changes ?? [])
      .filter((change) => change.type === 'terraform_data' && change.name.endsWith('_apply'))
      .filter((change) => change.change.actions.includes('create'))
      .flatMap(({ change }) => {
        const drifted = change.after?.input?.drifted;
        if (typeof drifted !== 'string') throw new Error(`input.drifted is not known in the plan: ${shown.stdout}`);
        return drifted.split(',').filter((name) => name !== '');
      });
    return names.sort();
  }

  /** The binary and the timings, rounded, as one line. */
  report(): string {
    return reportTimings(this.timings);
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }

  private exec(file: string, args: string[], cwd: string, extra: NodeJS.ProcessEnv): Promise<CommandOutcome> {
    return runCommand(file, args, cwd, { ...testProcessEnv(), ...this.env, CHECKPOINT_DISABLE: '1', ...extra });
  }
}

interface ResourceChange {
  readonly type: string;
  readonly name: string;
  readonly change: {
    readonly actions: string[];
    readonly after?: { readonly input?: { readonly drifted?: unknown } } | null;
  };
}

/** Every file below `dir`, for scanning a synthesized folder for values that must not be there. */
export const filesUnder = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });

/** `<binary>: {"step":seconds,...}`, so a log says whether terraform (1.11 or 1.15) or tofu ran. */
export const reportTimings = (timings: Record<string, number>): string => {
  const rounded = JSON.stringify(timings, (_, v: unknown) => (typeof v === 'number' ? Math.round(v * 100) / 100 : v));
  return `${terraformLabel()}: ${rounded}`;
};

/** A running command in its own process group. */
export interface Interruptible {
  readonly exited: Promise<CommandOutcome>;
  /** SIGINT to the whole group: the command and every process it started, as a terminal's Ctrl-C. */
  interrupt(): void;
  /** SIGKILL to the whole group, for cleanup when a test fails before the command ended. */
  kill(): void;
}

export const startCommand = (file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Interruptible => {
  const started = process.hrtime.bigint();
  const child = spawn(file, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let done = false;
  const exited = new Promise<CommandOutcome>((resolve) =>
    child.once('close', (code) => {
      done = true;
      resolve({ code: code ?? 1, stdout, stderr, seconds: Number(process.hrtime.bigint() - started) / 1e9 });
    }),
  );
  const signal = (name: NodeJS.Signals) => () => {
    if (!done && child.pid !== undefined) process.kill(-child.pid, name);
  };
  return { exited, interrupt: signal('SIGINT'), kill: signal('SIGKILL') };
};

/** Runs a command to completion: its exit code, output and wall seconds, whatever the exit code. */
export const runCommand = async (
  file: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<CommandOutcome> => {
  const started = process.hrtime.bigint();
  const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
  try {
    const { stdout, stderr } = await run(file, args, { cwd, env, maxBuffer: 64 << 20 });
    return { code: 0, stdout, stderr, seconds: seconds() };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof failed.code === 'number' ? failed.code : 1,
      stdout: failed.stdout ?? '',
      stderr: failed.stderr ?? '',
      seconds: seconds(),
    };
  }
};
