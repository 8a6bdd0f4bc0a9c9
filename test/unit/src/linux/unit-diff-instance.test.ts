/**
 * The read of an instance whose template is not on the host: systemd answers no state for it, so one declared
 * enabled and stopped read in sync and the apply that wrote the template left it disabled.
 */
import { digestOf } from '../../../../src/core/canonical';
import type { InstanceSpec } from '../../../../src/linux/systemd-instance';
import type { UnitSpec } from '../../../../src/linux/systemd-unit';
import type { LiveUnit } from '../../../../src/linux/unit-control';
import { diffUnit, summarizeUnit } from '../../../../src/linux/unit-diff';

const instance = (over: Partial<InstanceSpec> = {}): InstanceSpec => ({
  name: 'p@a.service',
  template: 'p@.service',
  directory: '/etc/systemd/system',
  enabled: true,
  started: false,
  restartOn: digestOf([]),
  startTimeoutSeconds: 90,
  unmask: false,
  ...over,
});
/** What the read answers for it: `show` says not-found, `is-enabled` failed, so no state at all. */
const absent: LiveUnit = {
  status: {
    loadState: 'not-found',
    activeState: 'inactive',
    subState: 'dead',
    unitFileState: '',
    needDaemonReload: false,
  },
  fileSha256: undefined,
  restartOn: undefined,
};
const read = (spec: InstanceSpec | UnitSpec) => {
  const diff = diffUnit(spec, absent);
  return { diff, summary: summarizeUnit(spec, 'h:22', absent, diff) };
};

test.each([
  ['enabled and stopped', {}, 'enables it'],
  ['enabled and started', { started: true }, 'enables and starts it'],
  ['disabled and started', { enabled: false, started: true }, 'starts it'],
])('one declared %s is drift, and the summary says what the apply does', (_, over, does) => {
  const { diff, summary } = read(instance(over));
  expect(Object.keys(diff).length).toBeGreaterThan(0);
  expect(summary).toBe(
    `unit p@a.service on h:22 is absent: its template p@.service is not on the host; the apply ${does} once the ` +
      'template is written',
  );
});

test('one declared disabled and stopped is in sync: there is nothing to do', () => {
  expect(read(instance({ enabled: false }))).toEqual({ diff: {}, summary: 'unit p@a.service on h:22 is absent' });
});

test('an absent unit of its own file reads by its file, as before', () => {
  const { template: _, ...control } = instance();
  const { diff, summary } = read({ ...control, name: 'u.service', content: '[Service]\nExecStart=/bin/true\n' });
  expect(Object.keys(diff)).toEqual(['file']);
  expect(summary).toBe('unit u.service on h:22 is absent');
});
