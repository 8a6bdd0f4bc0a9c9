/**
 * A user's project outside the repo, built from the README's own code blocks and the packed library, so a
 * tarball missing a file, a dependency only the repo has, or a README command that stopped working fails CI.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CommandOutcome, reportTimings, runCommand } from './cdktf-project';
import { packedLibrary } from './packed-library';
import { terraformBinary, terraformEnv } from './toolchain';

const ROOT = join(__dirname, '..', '..');

/** The README's fenced blocks by label: ```` ```sh setup ```` is `setup`. A label used twice throws. */
export const readmeBlocks = (): ReadonlyMap<string, string> => {
  const blocks = new Map<string, string>();
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  for (const [, label = '', body = ''] of readme.matchAll(/^```\w+ ([\w.-]+)\n([\s\S]*?)^```$/gm)) {
    if (blocks.has(label)) throw new Error(`README.md has two code blocks labelled ${label}`);
    blocks.set(label, body);
  }
  return blocks;
};

/** The README block `label`; a missing one names itself instead of running an empty script. */
export const readmeBlock = (label: string): string => {
  const body = readmeBlocks().get(label);
  if (body === undefined) throw new Error(`README.md has no code block labelled ${label}`);
  return body;
};

/** `text` with `from` replaced by `to`, exactly once: a README edit that drops the anchor fails loudly. */
export const replaceOnce = (text: string, from: string | RegExp, to: string): string => {
  const pattern = typeof from === 'string' ? new RegExp(from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g') : from;
  const count = text.match(new RegExp(pattern.source, 'g'))?.length ?? 0;
  if (count !== 1) throw new Error(`expected ${String(from)} once in the README block, found it ${count} times`);
  return text.replace(pattern, to);
};

/** Where the README's stack should point instead of its example hosts. */
export interface StackTargets {
  readonly pveUrl: string;
  readonly caFile: string;
  /** The SSH host; unset keeps the README's (synth and validate only). */
  readonly ssh?: { readonly host: string; readonly port: number; readonly hostKeyFingerprint: string };
}

/** The README's main.ts with its endpoints, CA file and SSH host swapped for the test servers. */
export const readmeStack = (targets: StackTargets): string => {
  let stack = readmeBlock('main.ts');
  stack = replaceOnce(stack, 'https://n2:8006', targets.pveUrl);
  stack = replaceOnce(stack, 'https://n3:8006', 'https://127.0.0.1:1'); // a member that refuses: never needed
  stack = replaceOnce(stack, '/etc/ssl/pve-root-ca.pem', targets.caFile);
  if (targets.ssh === undefined) return stack;
  stack = replaceOnce(stack, "host: '10.0.0.2',", `host: '${targets.ssh.host}', port: ${targets.ssh.port},`);
  return replaceOnce(stack, /SHA256:[A-Za-z0-9+/]{43}/, targets.ssh.hostKeyFingerprint);
};

/** A README block without its `export` lines, whose values stand for the user's own (a test passes its own). */
export const withoutExports = (block: string): string =>
  block
    .split('\n')
    .filter((line) => !line.startsWith('export '))
    .join('\n');

/** A README block for this machine: its terraform the toolchain's binary, an apply that does not ask. */
export const onThisMachine = (block: string): string =>
  block
    .replace(/\bterraform apply\b/g, 'terraform apply -auto-approve')
    .replace(/\bterraform /g, `"${terraformBinary()}" `);

/** The README's `run` block with the test's secrets instead of its placeholders, and the toolchain's binary. */
export const readmeRun = (): string => onThisMachine(withoutExports(readmeBlock('run')));

/** Terminal output as plain words: no colours, no diagnostic box borders, whitespace runs as one space. */
export const words = (text: string): string =>
  text
    .replace(/\x1b\[[0-9;]*m/g, '')
    .replace(/[│╷╵]/g, ' ')
    .replace(/\s+/g, ' ');

/** npm settings for a test install: no audit or fund requests, and the cache the repo's `npm ci` filled. */
const NPM_ENV: NodeJS.ProcessEnv = {
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  npm_config_prefer_offline: 'true',
  CHECKPOINT_DISABLE: '1',
  CI: '1', // cdktf-cli and cdktn-cli draw no spinners
};

export class UserProject {
  /** Private parent folder: the tarball and the project live in it, outside the repo. */
  readonly home = mkdtempSync(join(tmpdir(), 'homelab-user-'));
  readonly dir = join(this.home, 'lab');
  readonly timings: Record<string, number> = {};

  /** The packed library (packed-library.ts) in the project's parent folder; resolves to the tarball's path. */
  async pack(): Promise<string> {
    const packed = await packedLibrary(this.home, { ...terraformEnv(), ...NPM_ENV });
    if (packed.seconds !== undefined) this.timings['npm pack'] = packed.seconds;
    return packed.tarball;
  }

  /** Runs a bash script (`set -euo pipefail`) in `cwd` (default: the project), failing with its output. */
  async must(
    label: string,
    script: string,
    cwd = this.dir,
    env: NodeJS.ProcessEnv = {},
    args: string[] = [],
  ): Promise<CommandOutcome> {
    const outcome = await this.bash(script, cwd, env, args);
    if (outcome.code !== 0) throw new Error(`${label} exited ${outcome.code}\n${outcome.stdout}\n${outcome.stderr}`);
    this.timings[label] = outcome.seconds;
    return outcome;
  }

  /** Runs a bash script and returns its outcome whatever the exit code. */
  bash(script: string, cwd = this.dir, env: NodeJS.ProcessEnv = {}, args: string[] = []): Promise<CommandOutcome> {
    return runCommand('bash', ['-euo', 'pipefail', '-c', script, 'script', ...args], cwd, {
      ...terraformEnv(),
      ...NPM_ENV,
      ...env,
    });
  }

  /** terraform (or tofu) in a synthesized stack's folder; the outcome whatever the exit code. */
  terraform(stack: string, args: string, env: NodeJS.ProcessEnv = {}): Promise<CommandOutcome> {
    return this.bash(`"${terraformBinary()}" ${args}`, join(this.dir, 'cdktf.out', 'stacks', stack), env);
  }

  /** The binary and the timings, rounded, as one line. */
  report(): string {
    return reportTimings(this.timings);
  }

  cleanup(): void {
    rmSync(this.home, { recursive: true, force: true });
  }
}
