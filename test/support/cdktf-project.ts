/**
 * A throwaway user project around one of our example apps: its own cdktf.json, `cdktf synth`,
 * and real terraform in the synthesized stack folder, with the offline provider mirror.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { terraformBinary, terraformEnv } from './toolchain';

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
    app: string,
    private readonly stack: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {
    writeFileSync(join(this.dir, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: `node ${join(ROOT, app)}`, output: 'cdktf.out' }));
  }

  get stackDir(): string {
    return join(this.dir, 'cdktf.out', 'stacks', this.stack);
  }

  get statePath(): string {
    return join(this.dir, `terraform.${this.stack}.tfstate`);
  }

  /** `cdktf synth` with extra variables for the app. */
  synth(appEnv: NodeJS.ProcessEnv = {}): Promise<CommandOutcome> {
    return this.exec(join(ROOT, 'node_modules', '.bin', 'cdktf'), ['synth'], this.dir, appEnv);
  }

  terraform(...args: string[]): Promise<CommandOutcome> {
    return this.exec(terraformBinary(), [...args], this.stackDir, { TF_IN_AUTOMATION: '1', TF_INPUT: '0' });
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

  /** The timings, rounded, as one line. */
  report(): string {
    return JSON.stringify(this.timings, (_, v: unknown) => (typeof v === 'number' ? Math.round(v * 100) / 100 : v));
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async exec(file: string, args: string[], cwd: string, extra: NodeJS.ProcessEnv): Promise<CommandOutcome> {
    const started = process.hrtime.bigint();
    const env = { ...terraformEnv(), ...this.env, CHECKPOINT_DISABLE: '1', ...extra };
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    try {
      const { stdout, stderr } = await run(file, args, { cwd, env, maxBuffer: 64 << 20 });
      return { code: 0, stdout, stderr, seconds: seconds() };
    } catch (error) {
      const failed = error as { code?: number; stdout?: string; stderr?: string };
      return { code: typeof failed.code === 'number' ? failed.code : 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '', seconds: seconds() };
    }
  }
}

/** Every file below `dir`, for scanning a synthesized folder for values that must not be there. */
export const filesUnder = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
