/**
 * One unit as the unit-diff tests state it: a oneshot declared stopped and disabled, and what the read of it
 * answers, each overridable, so each test names only what differs from a converged unit.
 */
import { sha256Hex } from '../../../../src/core/canonical';
import type { UnitSpec } from '../../../../src/linux/systemd-unit';
import type { LiveUnit } from '../../../../src/linux/unit-control';
import type { UnitStatus } from '../../../../src/linux/unit-state';

export const content = '[Service]\nType=oneshot\nExecStart=/usr/bin/true\n';
export const spec: UnitSpec = {
  name: 'check.service',
  directory: '/etc/systemd/system',
  content,
  enabled: false,
  started: false,
  restartOn: 'r1',
  startTimeoutSeconds: 90,
  unmask: false,
};
export const status = (over: Partial<UnitStatus> = {}): UnitStatus => ({
  loadState: 'loaded',
  activeState: 'inactive',
  subState: 'dead',
  unitFileState: 'disabled',
  needDaemonReload: false,
  ...over,
});
export const live = (over: Partial<UnitStatus> = {}, rest: Partial<LiveUnit> = {}): LiveUnit => ({
  status: status(over),
  fileSha256: sha256Hex(content),
  restartOn: 'r1',
  ...rest,
});
