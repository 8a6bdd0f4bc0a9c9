/**
 * The pure half of a systemd unit: the drift between the declared unit and what the host reports,
 * and the steps that close it. Read and apply both go through `isUnitRunning`, so a plan and the
 * apply that follows can never disagree about whether a unit is running.
 */
import * as z from 'zod/mini';
import { sha256Hex } from '../core/canonical';
import { describeDiff, type FieldDiff } from '../core/protocol';
import { UNIT_DIRECTORY, unitNameProblem } from './unit-name';
import { enabledOf, isUnitRunning, type UnitStatus } from './unit-state';

/** A unit name by systemd's rules, re-checked by the handler before it reaches a command line. */
const unitName = z.string().check(z.refine((name) => unitNameProblem(name) === undefined, 'a valid systemd unit name'));

/** An absolute directory with no `..`, so `<directory>/<name>` cannot walk out of it. */
const unitDirectory = z
  .string()
  .check(z.regex(UNIT_DIRECTORY, 'an absolute path of letters, digits and . _ -'), z.refine((dir) => !dir.split('/').includes('..'), 'a path without ..'));

/** What names a unit: all that destroy gets. */
export const unitIdentity = z.object({ name: unitName, directory: unitDirectory });

/** The spec a `SystemdUnit` synthesizes. */
export const unitSpec = z.object({
  name: unitName,
  directory: unitDirectory,
  content: z.string(),
  enabled: z.boolean(),
  started: z.boolean(),
  /** Digest of the `restartOn` strings; its move restarts a running unit. */
  restartOn: z.string().check(z.regex(/^[0-9a-f]{64}$/, 'a sha256 digest')),
});

export type UnitSpec = z.infer<typeof unitSpec>;
export type UnitIdentity = z.infer<typeof unitIdentity>;

/** What one read of the host found. */
export interface LiveUnit {
  readonly status: UnitStatus;
  /** sha256 of the unit file, undefined when there is no file. */
  readonly fileSha256: string | undefined;
  /** The restartOn digest recorded by the last apply, undefined when none was. */
  readonly restartOn: string | undefined;
}

export const unitPath = (spec: Pick<UnitSpec, 'directory' | 'name'>): string => `${spec.directory}/${spec.name}`;

/** Where apply records the restartOn digest it last acted on. */
export const RESTART_ON_DIR = '/var/lib/cdktf-homelab/restart-on';

export const restartOnPath = (unit: Pick<UnitSpec, 'name'>): string => `${RESTART_ON_DIR}/${unit.name}`;

export const isAbsent = (live: LiveUnit): boolean =>
  live.fileSha256 === undefined && live.status.loadState === 'not-found';

/** Every way the host differs from the spec; empty when in sync. */
export const diffUnit = (spec: UnitSpec, live: LiveUnit): FieldDiff => {
  const changes: Record<string, { live: unknown; want: unknown }> = {};
  const want = sha256Hex(spec.content);
  if (live.fileSha256 !== want) changes.file = { live: short(live.fileSha256), want: short(want) };
  const enabled = enabledOf(live.status.unitFileState);
  if (enabled !== undefined && enabled !== spec.enabled) changes.enabled = { live: enabled, want: spec.enabled };
  const running = isUnitRunning(live.status.activeState, live.status.subState, spec.started);
  if (running !== spec.started) {
    changes.running = { live: `${live.status.activeState}/${live.status.subState}`, want: spec.started ? 'running' : 'stopped' };
  }
  if (live.status.needDaemonReload) changes.NeedDaemonReload = { live: 'yes', want: 'no' };
  if (running && spec.started && live.restartOn !== undefined && live.restartOn !== spec.restartOn) {
    changes.restartOn = { live: short(live.restartOn), want: short(spec.restartOn) };
  }
  return changes;
};

const short = (digest: string | undefined): string | null => (digest === undefined ? null : `sha256:${digest.slice(0, 12)}`);

/** The plan's one line. */
export const summarizeUnit = (spec: UnitSpec, host: string, live: LiveUnit, changes: FieldDiff): string => {
  const name = `unit ${spec.name} on ${host}`;
  if (isAbsent(live)) return `${name} is absent`;
  const state = `${live.status.activeState}/${live.status.subState}`;
  return Object.keys(changes).length === 0 ? `${name} is in sync (${state})` : `${name} (${state}) differs: ${describeDiff(changes)}`;
};

/** Apply's first phase: whether the file must be written and systemd reloaded. */
export const fileSteps = (spec: UnitSpec, live: LiveUnit) => {
  const write = live.fileSha256 !== sha256Hex(spec.content);
  return { write, daemonReload: write || live.status.needDaemonReload };
};

/** Apply's second phase, from the status read after the reload. */
export interface SettleSteps {
  readonly enable: boolean;
  readonly disable: boolean;
  readonly start: boolean;
  readonly stop: boolean;
  readonly restart: boolean;
}

/**
 * Never stop a declared `started: false` oneshot mid-run, never start a unit already activating,
 * restart a running unit whose file or restartOn changed, and re-enable after a file change so
 * the [Install] links follow the new file.
 */
export const settleSteps = (spec: UnitSpec, status: UnitStatus, recordedRestartOn: string | undefined, written: boolean): SettleSteps => {
  const enabled = enabledOf(status.unitFileState);
  const running = isUnitRunning(status.activeState, status.subState, spec.started);
  const restartOnMoved = recordedRestartOn !== undefined && recordedRestartOn !== spec.restartOn;
  return {
    enable: spec.enabled && (enabled === false || (written && enabled === true)),
    disable: !spec.enabled && enabled === true,
    stop: !spec.started && running,
    start: spec.started && !running,
    restart: spec.started && running && (written || restartOnMoved),
  };
};
