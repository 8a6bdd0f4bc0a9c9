/**
 * The processes of a faulted apply: terraform started in a process group of its own with its pid at hand, and
 * the stack's handler processes found by their command line (`node …/homelab-handler-<domain>/…/<domain>.js
 * batch apply`) and working directory, so a fault signals exactly the process it means.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import type { Domain } from './faults';

export interface Running {
  readonly pid: number;
  readonly exited: Promise<{ code: number; output: string }>;
  isRunning(): boolean;
}

/** Starts `file args` in `cwd` as the leader of a new process group. */
export const startGroup = (file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Running => {
  const child = spawn(file, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let running = true;
  const exited = new Promise<{ code: number; output: string }>((resolve) =>
    child.once('close', (code, signal) => {
      running = false;
      resolve({ code: code ?? (signal === null ? 1 : 128), output });
    }),
  );
  return { pid: child.pid ?? 0, exited, isRunning: () => running };
};

export interface HandlerProcess {
  readonly pid: number;
  readonly domain: Domain;
  /** `batch apply`, `<kind> destroy`, `batch read`. */
  readonly verb: string;
}

const HANDLER = /homelab-handler-(linux|pve|kube)\/[^/]+\/\1\.js$/;

const read = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

/** The handler processes running in `stackDir`, whoever their parent is now (an orphan's is init). */
export const handlersIn = (stackDir: string): HandlerProcess[] =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name): HandlerProcess[] => {
      const argv = read(`/proc/${name}/cmdline`)?.split('\0') ?? [];
      const domain = HANDLER.exec(argv[1] ?? '')?.[1] as Domain | undefined;
      if (domain === undefined) return [];
      let cwd: string | undefined;
      try {
        cwd = readlinkSync(`/proc/${name}/cwd`);
      } catch {
        return [];
      }
      return cwd === stackDir ? [{ pid: Number(name), domain, verb: argv.slice(2, 4).join(' ') }] : [];
    });

const SH_HOOK = /homelab-destroy-hook\/[^/]+\/destroy-hook\.sh$/;

/**
 * The stack's destroy processes: sh destroy hooks (`hook`), and Node destroy handlers, among them the leader its
 * domain's hooks hand their objects to (`leader`, started with HOMELAB_RELAY_DOMAIN by the hook that claimed it).
 */
export const destroysIn = (stackDir: string): Array<{ pid: number; role: 'hook' | 'leader' | 'node' }> =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => {
      const argv = read(`/proc/${name}/cmdline`)?.split('\0') ?? [];
      const hook = SH_HOOK.test(argv[1] ?? '');
      if (!hook && !(HANDLER.test(argv[1] ?? '') && argv[3] === 'destroy')) return [];
      let cwd: string | undefined;
      try {
        cwd = readlinkSync(`/proc/${name}/cwd`);
      } catch {
        return [];
      }
      if (cwd !== stackDir) return [];
      const leads = (read(`/proc/${name}/environ`) ?? '')
        .split('\0')
        .some((v) => v.startsWith('HOMELAB_RELAY_DOMAIN='));
      return [{ pid: Number(name), role: hook ? ('hook' as const) : leads ? ('leader' as const) : ('node' as const) }];
    });

/** Whether `pid` is alive (a zombie counts as gone). */
export const alive = (pid: number): boolean => {
  const stat = read(`/proc/${pid}/stat`);
  return stat !== undefined && !/^\d+ \(.*\) Z /.test(stat);
};

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` every `everyMs` until it returns a value or `ms` passes (then undefined). */
export const waitFor = async <T>(probe: () => T | undefined, ms: number, everyMs = 25): Promise<T | undefined> => {
  for (const deadline = Date.now() + ms; ; await sleep(everyMs)) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) return undefined;
  }
};
