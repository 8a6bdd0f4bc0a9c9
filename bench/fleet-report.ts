/**
 * The tables bench/fleet.ts prints, kept pure so each ratio is computed one way: how each phase grows with hosts
 * against one host's time scaled by hosts / min(hosts, parallelism) (issue 30 target: the apply within 2x), and
 * our times against pipelined Ansible's on the same hosts (target: at most 1/20). A ratio with nothing to compare
 * against prints as "-", never as a made-up figure.
 */
import { peakConcurrency, verbOf, type HandlerProcess, type PhaseProfile } from './fleet-profile';
import { median } from './scale-runs';

export const PHASES = ['first apply', 'clean plan', 'drift plan', 'converge', 'destroy'] as const;
export type Phase = (typeof PHASES)[number];

/** One timed pass of the five phases over `hosts` hosts at one -parallelism. */
export interface FleetRun {
  readonly hosts: number;
  readonly parallelism: number;
  readonly seconds: Record<Phase, number>;
  /** The 1-minute load average as the run started and ended. */
  readonly load: readonly [number, number];
  /** Bytes each of the run's containers held after the first apply (25 units running). */
  readonly memory: readonly number[];
  /** Who spent the machine's CPU during each phase (bench/fleet-profile.ts). */
  readonly profiles: Record<Phase, PhaseProfile>;
}

/** Pipelined Ansible with forks on the same hosts and units: its apply, --check and converge. */
export interface AnsibleRun {
  readonly hosts: number;
  readonly apply: number;
  readonly check: number;
  readonly converge: number;
}

export const APPLY_GROWTH_TARGET = 2;
export const ANSIBLE_TARGET = 1 / 20;

const fixed = (figure: number): string => (Number.isFinite(figure) ? figure.toFixed(figure < 10 ? 2 : 1) : '-');
const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(0);
const row = (cells: ReadonlyArray<string | number>): string => `| ${cells.join(' | ')} |`;

/** What `hosts` hosts should take if each took one host's time and `parallelism` of them ran at once. */
export const scaledOneHost = (oneHost: number, hosts: number, parallelism: number): number =>
  (oneHost * hosts) / Math.min(hosts, parallelism);

/** The one-host run at the same -parallelism, or else the first one-host run. */
const baseOf = (runs: readonly FleetRun[], parallelism: number): FleetRun | undefined =>
  runs.find((r) => r.hosts === 1 && r.parallelism === parallelism) ?? runs.find((r) => r.hosts === 1);

export const timesTable = (runs: readonly FleetRun[]): string => {
  const head = [
    row(['hosts', '-parallelism', ...PHASES.map((p) => `${p} (s)`), 'load 1m start/end']),
    `|${' --- |'.repeat(2 + PHASES.length + 1)}`,
  ];
  const lines = runs.map((r) =>
    row([r.hosts, r.parallelism, ...PHASES.map((p) => fixed(r.seconds[p])), r.load.map((l) => l.toFixed(1)).join('/')]),
  );
  return [...head, ...lines].join('\n');
};

/** Each phase over one host's time × hosts / min(hosts, parallelism); the apply's against its target. */
export const growthTable = (runs: readonly FleetRun[]): string => {
  const head = [
    row(['hosts', '-parallelism', ...PHASES.map((p) => `${p} / scaled 1 host`), 'apply target']),
    `|${' --- |'.repeat(2 + PHASES.length + 1)}`,
  ];
  const lines = runs
    .filter((r) => r.hosts > 1)
    .map((r) => {
      const base = baseOf(runs, r.parallelism);
      const ratio = (p: Phase) =>
        base === undefined ? NaN : r.seconds[p] / scaledOneHost(base.seconds[p], r.hosts, r.parallelism);
      const verdict = ratio('first apply') <= APPLY_GROWTH_TARGET ? 'met' : 'missed';
      const target = `≤ ${APPLY_GROWTH_TARGET} (${base === undefined ? 'no 1-host run' : verdict})`;
      return row([r.hosts, r.parallelism, ...PHASES.map((p) => fixed(ratio(p))), target]);
    });
  return [...head, ...lines].join('\n');
};

/** Ours (the fastest -parallelism at that host count) against pipelined Ansible on the same hosts. */
export const ansibleTable = (runs: readonly FleetRun[], ansible: readonly AnsibleRun[], forks: number): string => {
  const head = [
    row(['hosts', 'apply ours/Ansible (s)', 'ratio', 'target', 'drift plan / --check', 'converge ours/Ansible']),
    '| ---: | ---: | ---: | --- | ---: | ---: |',
  ];
  const lines = ansible.map((a) => {
    const mine = runs.filter((r) => r.hosts === a.hosts);
    const best = (p: Phase) => Math.min(...mine.map((r) => r.seconds[p]));
    const ratio = best('first apply') / a.apply;
    const verdict = ratio <= ANSIBLE_TARGET ? 'met' : 'missed';
    return row([
      a.hosts,
      `${fixed(best('first apply'))} / ${fixed(a.apply)}`,
      fixed(ratio),
      `≤ ${ANSIBLE_TARGET} (${verdict}; forks=${forks}, pipelining)`,
      `${fixed(best('drift plan'))} / ${fixed(a.check)} = ${fixed(best('drift plan') / a.check)}`,
      `${fixed(best('converge'))} / ${fixed(a.converge)} = ${fixed(best('converge') / a.converge)}`,
    ]);
  });
  return [...head, ...lines].join('\n');
};

/** Container memory after the first apply: per host (median, max) and the run's total, in MiB. */
export const memoryTable = (runs: readonly FleetRun[], units: number, idle: readonly number[]): string => {
  const head = [
    row(['hosts', 'units per host', 'MiB per host (median)', 'max', 'total MiB', 'idle MiB per host (median)']),
    '| ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  const seen = new Set<number>();
  const lines = runs.flatMap((r) => {
    if (seen.has(r.hosts) || r.memory.length === 0) return [];
    seen.add(r.hosts);
    const total = r.memory.reduce((sum, bytes) => sum + bytes, 0);
    return [row([r.hosts, units, mib(median(r.memory)), mib(Math.max(...r.memory)), mib(total), mib(median(idle))])];
  });
  return [...head, ...lines].join('\n');
};

const cpu = (seconds: number): string => seconds.toFixed(1);

/** Per run and phase: the wall time, the CPU both cores gave and who spent it; "others" is the rest of the machine. */
export const profileTable = (runs: readonly FleetRun[]): string => {
  const head = [
    row([
      'hosts',
      '-parallelism',
      'phase',
      'wall (s)',
      'machine CPU-s (cores busy)',
      'Terraform',
      'handlers: n, at once, CPU-s',
      'containers',
      'bench + fake PVE',
      'others',
    ]),
    '| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  const lines = runs.flatMap((r) =>
    PHASES.map((phase) => {
      const p = r.profiles[phase];
      const handlers = p.handlers.reduce((sum, h) => sum + h.cpu, 0);
      const others = p.machine - p.terraform - handlers - p.containers - p.bench;
      const busy = `${cpu(p.machine)} (${(p.machine / p.wall).toFixed(2)})`;
      const procs = `${p.handlers.length}, ${peakConcurrency(p.handlers)}, ${cpu(handlers)}`;
      return row([
        r.hosts,
        r.parallelism,
        phase,
        fixed(p.wall),
        busy,
        cpu(p.terraform),
        procs,
        cpu(p.containers),
        cpu(p.bench),
        cpu(others),
      ]);
    }),
  );
  return [...head, ...lines].join('\n');
};

/** The handler processes of one phase by verb: how many, how many at once, CPU each, and when (s into the phase). */
const verbRows = (r: FleetRun, phase: Phase): string[] => {
  const p = r.profiles[phase];
  const groups = new Map<string, HandlerProcess[]>();
  for (const h of p.handlers) groups.set(verbOf(h.command), [...(groups.get(verbOf(h.command)) ?? []), h]);
  const at = (ms: number) => ((ms - p.start) / 1000).toFixed(1);
  return [...groups].map(([verb, list]) => {
    const total = list.reduce((sum, h) => sum + h.cpu, 0);
    const wall = list.reduce((sum, h) => sum + (h.end - h.start) / 1000, 0);
    const span = `${at(Math.min(...list.map((h) => h.start)))}-${at(Math.max(...list.map((h) => h.end)))}`;
    const each = `${(total / list.length).toFixed(2)} / ${(wall / list.length).toFixed(2)}`;
    return row([r.hosts, r.parallelism, phase, verb, list.length, peakConcurrency(list), cpu(total), each, span]);
  });
};

/** The first apply's and the destroy's handler processes by verb, for every run. */
export const handlerTable = (runs: readonly FleetRun[]): string => {
  const head = [
    row(['hosts', '-parallelism', 'phase', 'process', 'n', 'at once', 'CPU-s', 'each CPU-s / wall s', 'from-to (s)']),
    '| ---: | ---: | --- | --- | ---: | ---: | ---: | ---: | --- |',
  ];
  return [...head, ...runs.flatMap((r) => [...verbRows(r, 'first apply'), ...verbRows(r, 'destroy')])].join('\n');
};
