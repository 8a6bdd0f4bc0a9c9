/**
 * What systemd says about a unit, parsed from `systemctl show` output (never from exit codes,
 * which report 0 for a missing unit), and the one running-policy shared by read and apply.
 */

export interface UnitStatus {
  readonly loadState: string;
  readonly activeState: string;
  readonly subState: string;
  readonly unitFileState: string;
  readonly needDaemonReload: boolean;
}

export const SHOW_PROPERTIES = ['Id', 'LoadState', 'ActiveState', 'SubState', 'UnitFileState', 'NeedDaemonReload'];

/** `Key=Value` lines of `systemctl show -p ...` into a status. */
export const parseShow = (stdout: string): UnitStatus => {
  const values = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) values.set(line.slice(0, eq), line.slice(eq + 1).trim());
  }
  return {
    loadState: values.get('LoadState') ?? '',
    activeState: values.get('ActiveState') ?? '',
    subState: values.get('SubState') ?? '',
    unitFileState: values.get('UnitFileState') ?? '',
    needDaemonReload: values.get('NeedDaemonReload') === 'yes',
  };
};

/**
 * Whether the unit counts as running against the declared `started`.
 *
 * A timer-driven oneshot declared `started: false` is `activating/start` for its whole run: that
 * run is not drift, and apply must not stop it. A crash loop (`activating/auto-restart`) is
 * running whatever `started` says, so `started: false` still stops it. Measured on systemd 252:
 * `ExecStart=/bin/false` with `Restart=on-failure` reads `activating/auto-restart`.
 * Source: systemd service.c state_translation_table.
 */
export const isUnitRunning = (activeState: string, subState: string, started: boolean): boolean => {
  if (activeState === 'active' || activeState === 'reloading') return true;
  if (activeState !== 'activating') return false;
  if (subState === 'auto-restart' || subState === 'auto-restart-queued') return true;
  return started;
};

/**
 * Whether the unit is enabled, or undefined where enable/disable does not apply: a unit without
 * [Install] is `static`, and generated, transient and indirect units are not ours to link.
 */
export const enabledOf = (unitFileState: string): boolean | undefined => {
  if (['enabled', 'enabled-runtime', 'alias'].includes(unitFileState)) return true;
  if (['disabled', 'linked', 'linked-runtime', 'masked', 'masked-runtime'].includes(unitFileState)) return false;
  return undefined;
};
