/**
 * What systemd says about a unit, parsed from `systemctl show` output (never from exit codes,
 * which report 0 for a missing unit), the one running-policy shared by read and apply, and the
 * settle verdict apply polls with, so a start that never finishes fails instead of hanging.
 */
import { shownPaths } from './shown-paths';

export interface UnitStatus {
  readonly loadState: string;
  readonly activeState: string;
  readonly subState: string;
  readonly unitFileState: string;
  readonly needDaemonReload: boolean;
  /** The id of the job systemd is running or has queued for the unit; empty when none. */
  readonly job?: string;
  /** When the unit entered its current state, in Unix seconds (to the microsecond where systemctl shows it). */
  readonly stateSince?: number;
  /** The id of the unit's current (or last) run: a start or restart gives it a new one. */
  readonly invocation?: string;
  /** When the current run's main process started (else when it left inactive), in Unix seconds, likewise. */
  readonly startedAt?: number;
  /** The files systemd loaded the unit from: its file (a template's for an instance), then its drop-ins. */
  readonly contentPaths?: readonly string[];
  /** The file systemd loaded the unit from (FragmentPath); absent when it has none. */
  readonly fragmentPath?: string;
  /** Its drop-ins as systemd loaded them (DropInPaths), when `show` was asked for them. */
  readonly dropInPaths?: readonly string[];
  /** The host's systemd version, when the read read it (unit-facts.ts: an UpheldBy= to judge). */
  readonly managerVersion?: number;
  /** Drop-ins on disk a loaded unit's systemd has not loaded, listed in dropInPaths too (unloaded-drop-ins.ts). */
  readonly unloadedDropIns?: readonly string[];
  /**
   * The UnitFileState pid1 holds (`show`), when the disk's (`list-unit-files`, `is-enabled`) differs: pid1 keeps a
   * loaded unit's from its first look until a daemon-reload (unit-read.ts), and with it the wants of that enablement.
   */
  readonly shownUnitFileState?: string;
  /** Every name systemd knows the unit by (Names=: its own and its aliases'), each with `.d/` dirs it searches. */
  readonly names?: readonly string[];
}

export const SHOW_PROPERTIES = [
  'Id',
  'LoadState',
  'ActiveState',
  'SubState',
  'UnitFileState',
  'NeedDaemonReload',
  'Job',
  'StateChangeTimestamp',
  'InvocationID',
  'ExecMainStartTimestamp',
  'InactiveExitTimestamp',
  'FragmentPath',
  'DropInPaths',
  'Names',
];

/** `Key=Value` lines of `systemctl show -p ...` into a status. */
export const parseShow = (stdout: string): UnitStatus => {
  const values = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) values.set(line.slice(0, eq), line.slice(eq + 1).trim());
  }
  const since = utcSeconds(values.get('StateChangeTimestamp') ?? '');
  const startedAt =
    utcSeconds(values.get('ExecMainStartTimestamp') ?? '') ?? utcSeconds(values.get('InactiveExitTimestamp') ?? '');
  const fragmentPath = values.get('FragmentPath') ?? '';
  const dropInPaths = shownPaths('DropInPaths', values.get('DropInPaths') ?? '');
  const contentPaths = [fragmentPath, ...dropInPaths].filter((path) => path !== '');
  return {
    loadState: values.get('LoadState') ?? '',
    activeState: values.get('ActiveState') ?? '',
    subState: values.get('SubState') ?? '',
    unitFileState: values.get('UnitFileState') ?? '',
    needDaemonReload: values.get('NeedDaemonReload') === 'yes',
    ...(values.get('Job') ? { job: values.get('Job') } : {}),
    ...(since === undefined ? {} : { stateSince: since }),
    ...(values.get('InvocationID') ? { invocation: values.get('InvocationID') } : {}),
    ...(startedAt === undefined ? {} : { startedAt }),
    ...(values.has('FragmentPath') ? { contentPaths } : {}),
    ...(fragmentPath === '' ? {} : { fragmentPath }),
    ...(values.has('DropInPaths') ? { dropInPaths } : {}),
    ...(values.has('Names') ? { names: (values.get('Names') ?? '').split(/\s+/).filter((name) => name !== '') } : {}),
  };
};

/**
 * `Wed 2026-12-02 15:43:45.123456 UTC` (`--timestamp=us+utc`, systemd 248 on) or `Wed 2026-12-02 15:43:45 UTC`
 * (systemd's format under TZ=UTC, every version) to Unix seconds, with the microseconds when shown.
 */
const utcSeconds = (text: string): number | undefined => {
  const match = /(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(\.\d{1,9})? UTC$/.exec(text);
  return match === null ? undefined : Date.parse(`${match[1]}T${match[2]}Z`) / 1000 + Number(match[3] ?? 0);
};

/**
 * Whether the unit counts as running against the declared `started`.
 *
 * A timer-driven oneshot declared `started: false` is `activating/start` for its whole run: that
 * run is not drift, and apply must not stop it. A crash loop (`activating/auto-restart`) is
 * running whatever `started` says, so `started: false` still stops it. Measured on systemd 252:
 * `ExecStart=/bin/false` with `Restart=on-failure` reads `activating/auto-restart`. A unit declared
 * `started: true` that is still activating past its start deadline (`overdue`) never became ready,
 * so it is not running. Source: systemd service.c state_translation_table.
 */
export const isUnitRunning = (activeState: string, subState: string, started: boolean, overdue = false): boolean => {
  if (activeState === 'active' || activeState === 'reloading') return true;
  if (activeState !== 'activating') return false;
  if (subState === 'auto-restart' || subState === 'auto-restart-queued') return true;
  return started && !overdue;
};

/**
 * How the unit is enabled: `enabled` (links under /etc, kept across boots), `runtime` (links under /run
 * alone, `enable --runtime`: gone at the next boot) or `disabled`; undefined where enable/disable does not
 * apply: a unit without [Install] is `static`, a template whose instances are enabled is `indirect`, and
 * generated, transient and indirect units are not ours to link. Masked is its own state (see `isMasked`).
 */
export type Enablement = 'enabled' | 'runtime' | 'disabled';

export const enablementOf = (unitFileState: string): Enablement | undefined => {
  if (['enabled', 'alias'].includes(unitFileState)) return 'enabled';
  if (unitFileState === 'enabled-runtime') return 'runtime';
  if (['disabled', 'linked', 'linked-runtime'].includes(unitFileState)) return 'disabled';
  return undefined;
};

/** Whether the unit is enabled for good (`enablementOf`): one enabled until reboot alone is not. */
export const enabledOf = (unitFileState: string): boolean | undefined => {
  const enablement = enablementOf(unitFileState);
  return enablement === undefined ? undefined : enablement === 'enabled';
};

/** A unit linked to /dev/null (or an empty file): systemd refuses to load, start or enable it. */
export const isMasked = (status: Pick<UnitStatus, 'loadState' | 'unitFileState'>): boolean =>
  status.loadState === 'masked' || status.unitFileState.startsWith('masked');

/** Where a wait after `start`/`stop --no-block` stands: keep polling, done, or failed for good. */
export type Settle = 'waiting' | 'settled' | 'failed';

/**
 * The wait's verdict. While systemd holds a job for the unit, it has not finished; once the job is
 * gone, a start settled when the unit is active (a crash loop or a unit that fell back to inactive
 * or failed never will), a stop when it is inactive or failed.
 */
export const settleOf = (status: UnitStatus, want: 'active' | 'inactive'): Settle => {
  const { activeState, subState } = status;
  if (want === 'active' && activeState === 'activating' && subState.startsWith('auto-restart')) return 'failed';
  if (status.job !== undefined) return 'waiting';
  if (want === 'inactive') return activeState === 'inactive' || activeState === 'failed' ? 'settled' : 'waiting';
  if (activeState === 'active' || activeState === 'reloading') return 'settled';
  return activeState === 'activating' ? 'waiting' : 'failed';
};
