/**
 * Where the fleet bench's time goes, per phase: the machine's CPU (both cores), Terraform's own, the handler
 * processes' (how many, how many at once, their CPU), the containers' (sshd, systemd, daemon-reloads, unit starts)
 * and the bench's own (the in-process fake PVE). A wall time alone cannot say whether more hosts wait on each
 * other or simply need more CPU than 2 cores have: with these beside it, a figure names its bottleneck.
 *
 * Handler processes are counted by a preload (NODE_OPTIONS=--require) that appends one line per Node process
 * Terraform starts as it exits: its script and arguments, start, end and CPU seconds. Terraform's CPU is the
 * bench's reaped children's (Terraform and, through it, every handler) less the Node handlers': a hook that is not
 * Node (the sh destroy hook) counts under Terraform. A container's CPU is the sum over the processes in its memory
 * cgroup of their own and their reaped children's times.
 */
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isRecord } from '../src/core/records';

/** One Node process Terraform ran, as the preload recorded it. */
export interface HandlerProcess {
  /** Script name and arguments, e.g. `linux.js batch apply`. */
  readonly command: string;
  /** Epoch milliseconds. */
  readonly start: number;
  readonly end: number;
  readonly cpu: number;
}

/** CPU seconds spent by each party during one phase, and its wall seconds. */
export interface PhaseProfile {
  readonly wall: number;
  readonly machine: number;
  readonly terraform: number;
  readonly containers: number;
  readonly bench: number;
  readonly handlers: readonly HandlerProcess[];
  /** Epoch milliseconds the phase started, to place the handlers in it. */
  readonly start: number;
}

/** The preload's text, appending to `file` (named in the text: no variable for a handler to read). */
const preload = (file: string): string => `const fs = require('fs');
process.on('exit', () => {
  const u = process.cpuUsage();
  const line = { command: [require('path').basename(process.argv[1] || ''), ...process.argv.slice(2)].join(' '),
    start: performance.timeOrigin, end: performance.timeOrigin + performance.now(), cpu: (u.user + u.system) / 1e6 };
  try { fs.appendFileSync(${JSON.stringify(file)}, JSON.stringify(line) + '\\n'); } catch {}
});
`;

const TICK = 100; // USER_HZ: /proc's clock ticks per second on Linux

/** The fields after a /proc/<pid>/stat line's command name: utime, stime, cutime, cstime in seconds. */
const ownAndReaped = (pid: string): number => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i] ?? 0), 0) / TICK;
  } catch {
    return 0; // the process ended between listing and reading
  }
};

/** Busy CPU seconds of the whole machine since boot (every core; idle and iowait left out). */
export const machineCpu = (): number => {
  const [, ...ticks] = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq, steal] = ticks.map(Number);
  return [user, nice, system, irq, softirq, steal].reduce<number>((sum, t) => sum + (t ?? 0), 0) / TICK;
};

/** CPU seconds of this process's reaped children (Terraform and its handlers, once Terraform has ended). */
export const reapedChildrenCpu = (): number => {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13] ?? 0) + Number(fields[14] ?? 0)) / TICK;
};

/** The memory cgroups of this process's test containers (test/support/nspawn-cgroups.ts names them). */
const containerCgroups = (): string[] => {
  const own = readFileSync('/proc/self/cgroup', 'utf8').match(/^\d+:memory:(.*)$/m)?.[1];
  const parent = own === undefined ? undefined : join('/sys/fs/cgroup/memory', own);
  if (parent === undefined || !existsSync(parent)) return [];
  const prefix = `cdktf-homelab.cdktf-${process.pid}-`;
  return readdirSync(parent)
    .filter((name) => name.startsWith(prefix))
    .map((name) => join(parent, name));
};

const pidsUnder = (dir: string): string[] => {
  const here = existsSync(join(dir, 'cgroup.procs')) ? readFileSync(join(dir, 'cgroup.procs'), 'utf8') : '';
  const below = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory());
  return [...here.split('\n').filter((p) => p !== ''), ...below.flatMap((e) => pidsUnder(join(dir, e.name)))];
};

/** CPU seconds every test container of this bench has used, its reaped processes included. */
export const containersCpu = (): number =>
  containerCgroups()
    .flatMap(pidsUnder)
    .reduce((sum, pid) => sum + ownAndReaped(pid), 0);

/** A preload file and the trace it fills; `env` goes into Terraform's environment. */
export const startTrace = () => {
  const dir = mkdtempSync(join(tmpdir(), 'homelab-fleet-trace-'));
  const file = join(dir, 'processes.jsonl');
  writeFileSync(join(dir, 'preload.js'), preload(file));
  appendFileSync(file, '');
  const read = (): HandlerProcess[] =>
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line): unknown => JSON.parse(line))
      .flatMap((item) => (isProcess(item) ? [item] : []));
  return {
    env: { NODE_OPTIONS: `--require ${join(dir, 'preload.js')}` },
    /** Times `step`, returning its result with who spent what meanwhile. */
    measure: async <T>(step: () => Promise<T>): Promise<{ result: T; profile: PhaseProfile }> => {
      const seen = read().length;
      const before = { machine: machineCpu(), tree: reapedChildrenCpu(), containers: containersCpu() };
      const bench = process.cpuUsage();
      const start = Date.now();
      const result = await step();
      const wall = (Date.now() - start) / 1000;
      const own = process.cpuUsage(bench);
      const handlers = read().slice(seen);
      const handlerCpu = handlers.reduce((sum, h) => sum + h.cpu, 0);
      const profile = {
        wall,
        machine: machineCpu() - before.machine,
        terraform: reapedChildrenCpu() - before.tree - handlerCpu,
        containers: containersCpu() - before.containers,
        bench: (own.user + own.system) / 1e6,
        handlers,
        start,
      };
      return { result, profile };
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
};

const isProcess = (item: unknown): item is HandlerProcess =>
  isRecord(item) &&
  typeof item.command === 'string' &&
  typeof item.cpu === 'number' &&
  typeof item.start === 'number' &&
  typeof item.end === 'number';

/** The most of `processes` that ran at the same moment. */
export const peakConcurrency = (processes: readonly HandlerProcess[]): number => {
  const edges = processes.flatMap((p) => [
    { at: p.start, step: 1 },
    { at: p.end, step: -1 },
  ]);
  edges.sort((a, b) => a.at - b.at || a.step - b.step);
  let running = 0;
  let peak = 0;
  for (const edge of edges) {
    running += edge.step;
    peak = Math.max(peak, running);
  }
  return peak;
};

/** `linux.js batch apply` → `linux batch apply`; a destroy hook keeps its kind (`linux systemd-unit destroy`). */
export const verbOf = (command: string): string => command.replace(/^([\w-]+)\.js\b/, '$1');
