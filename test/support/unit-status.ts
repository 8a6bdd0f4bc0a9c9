/**
 * The status `systemctl show` reads of a unit loaded, enabled and running, for the tests that read units through
 * mocks: one definition, so a field the read adds to UnitStatus is added here once, not in every test's copy.
 */
import type { UnitStatus } from '../../src/linux/unit-state';

/** A loaded, enabled unit running with no reload pending, with `over` in place of its fields. */
export const runningStatus = (over: Partial<UnitStatus> = {}): UnitStatus => ({
  loadState: 'loaded',
  activeState: 'active',
  subState: 'running',
  unitFileState: 'enabled',
  needDaemonReload: false,
  ...over,
});
