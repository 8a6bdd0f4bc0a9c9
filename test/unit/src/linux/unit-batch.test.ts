/**
 * The pure half of a host's batch apply: what each object reads and writes, when the host reloads
 * (once, and only when something asks for it), and one job per unit, which a drop-in joins instead of
 * restarting its unit a second time.
 */
import { readScript } from '../../../../src/linux/unit-read';
import { sha256Hex } from '../../../../src/core/canonical';
import type { DropInSpec } from '../../../../src/linux/systemd-drop-in';
import type { LiveUnit } from '../../../../src/linux/unit-control';
import type { UnitSpec } from '../../../../src/linux/systemd-unit';
import {
  fileOf,
  type Loaded,
  mustWrite,
  needsReload,
  planJobs,
  readEntryOf,
  type UnitChange,
} from '../../../../src/linux/unit-batch';
import type { UnitStatus } from '../../../../src/linux/unit-state';

const content = '[Service]\nExecStart=/bin/sleep infinity\n';
const unit = (name: string, over: Partial<UnitSpec> = {}): UnitChange => ({
  sort: 'unit',
  spec: {
    name,
    directory: '/etc/systemd/system',
    content,
    enabled: false,
    started: true,
    restartOn: 'r1',
    startTimeoutSeconds: 30,
    unmask: false,
    ...over,
  },
});
const instance = (name: string): UnitChange => {
  const { content: _, ...controlled } = unit(name).spec as UnitSpec;
  return { sort: 'instance', spec: { ...controlled, template: 'probe@.service' } };
};
const dropIn = (forUnit: string, over: Partial<DropInSpec> = {}): UnitChange => ({
  sort: 'drop-in',
  spec: { unit: forUnit, name: '10-env', directory: '/etc/systemd/system', content, startTimeoutSeconds: 60, ...over },
});
const live = (over: Partial<UnitStatus> = {}, file: string | null = content): LiveUnit => ({
  status: {
    loadState: 'loaded',
    activeState: 'active',
    subState: 'running',
    unitFileState: 'disabled',
    needDaemonReload: false,
    ...over,
  },
  fileSha256: file === null ? undefined : sha256Hex(file),
  restartOn: 'r1',
});
const loaded = (name: string, change: UnitChange, state: LiveUnit = live(), wrote = false): Loaded => ({
  name,
  change,
  before: state,
  loaded: state,
  wrote,
});

describe('what each object reads and writes', () => {
  test('a unit reads its file, record and intent, an instance no file, a drop-in its file, mark and intent', () => {
    expect(readEntryOf(unit('a.service'))).toEqual({
      unit: 'a.service',
      file: '/etc/systemd/system/a.service',
      record: '/var/lib/cdktf-homelab/restart-on/a.service',
      intent: '/var/lib/cdktf-homelab/intents/a.service',
      declared: { as: 'unit', path: '/etc/systemd/system/a.service' },
    });
    // An instance must be loaded from its template's file (unit-loaded.ts).
    expect(readEntryOf(instance('probe@x.service'))).toEqual({
      unit: 'probe@x.service',
      record: '/var/lib/cdktf-homelab/restart-on/probe@x.service',
      intent: '/var/lib/cdktf-homelab/intents/probe@x.service',
      declared: { as: 'unit', path: '/etc/systemd/system/probe@.service' },
    });
    expect(readEntryOf(dropIn('a.service'))).toEqual({
      unit: 'a.service',
      file: '/etc/systemd/system/a.service.d/10-env.conf',
      record: '/var/lib/cdktf-homelab/drop-ins/etc/systemd/system/a.service.d/10-env.conf',
      intent: '/var/lib/cdktf-homelab/intents/drop-ins/etc/systemd/system/a.service.d/10-env.conf',
      declared: { as: 'drop-in', path: '/etc/systemd/system/a.service.d/10-env.conf' },
    });
  });

  // A declared UpheldBy= is judged by the host's systemd version, which the read then reads (unit-read.ts).
  test('a unit or drop-in whose text sets UpheldBy= has the read read the manager', () => {
    const upheld = unit('u.service', { content: `${content}[Install]\nUpheldBy=multi-user.target\n` });
    expect(readEntryOf(upheld)).toMatchObject({ unit: 'u.service', manager: true });
    expect(readEntryOf(unit('a.service')).manager).toBeUndefined();
    expect(readScript([readEntryOf(upheld)])).toContain("| awk -v m=1 '");
    expect(readScript([readEntryOf(unit('a.service'))])).not.toContain('-v m=1');
  });

  test('a missing or changed file is written; an instance never writes one', () => {
    expect(mustWrite(unit('a.service'), live({}, null))).toBe(true);
    expect(mustWrite(unit('a.service'), live({}, 'other'))).toBe(true);
    expect(mustWrite(unit('a.service'), live({ needDaemonReload: true }))).toBe(false);
    expect(mustWrite(dropIn('a.service'), live({}, null))).toBe(true);
    expect(mustWrite(instance('probe@x.service'), live({}, null))).toBe(false);
    expect(fileOf(dropIn('a.service'))).toMatchObject({
      object: { sort: 'drop-in', directory: '/etc/systemd/system', unit: 'a.service' },
      path: expect.stringMatching(/^\/etc\/systemd\/system\/a\.service\.d\//),
    });
  });
});

describe('the one reload', () => {
  const object = (over: Partial<Parameters<typeof needsReload>[0][0]> = {}) => ({
    change: unit('a.service'),
    before: live(),
    wrote: false,
    unmasked: false,
    switched: false,
    ...over,
  });
  test.each([
    ['nothing changed', [object(), object()], false],
    ['one file of many written', [object(), object({ wrote: true })], true],
    ['a unit unmasked', [object({ unmasked: true })], true],
    ['NeedDaemonReload alone', [object({ before: live({ needDaemonReload: true }) })], true],
    ['a plain unit enabled, whose state follows at once', [object({ switched: true })], false],
    [
      'an instance enabled, which keeps its old state until a reload',
      [object({ change: instance('p@x.service'), switched: true })],
      true,
    ],
  ])('%s: %s', (_, objects, expected) => {
    expect(needsReload(objects)).toBe(expected);
  });
});

describe('one job per unit', () => {
  test('units get what settleSteps says, each under its own deadline, and an unchanged running unit none', () => {
    const jobs = planJobs([
      loaded('new', unit('new.service'), live({ activeState: 'inactive', subState: 'dead' }, null), true),
      loaded('changed', unit('changed.service', { startTimeoutSeconds: 5 }), live(), true),
      loaded('stopping', unit('stopping.service', { started: false })),
      loaded('same', unit('same.service')),
    ]);
    expect(jobs).toEqual([
      { unit: 'new.service', verb: 'start', want: 'active', seconds: 30, owners: ['new'] },
      { unit: 'changed.service', verb: 'restart', want: 'active', seconds: 5, owners: ['changed'] },
      { unit: 'stopping.service', verb: 'stop', want: 'inactive', seconds: 30, owners: ['stopping'] },
    ]);
  });

  test('a unit already activating gets no start, and is still waited for', () => {
    const activating = live({ activeState: 'activating', subState: 'start' });
    expect(planJobs([loaded('a', unit('a.service'), activating)])).toEqual([
      { unit: 'a.service', verb: undefined, want: 'active', seconds: 30, owners: ['a'] },
    ]);
  });

  test('a written drop-in restarts its running unit once, even with two drop-ins, under the longer deadline', () => {
    const jobs = planJobs([
      loaded('env', dropIn('agent.service'), live(), true),
      loaded('limits', dropIn('agent.service', { name: '20-limits', startTimeoutSeconds: 120 }), live(), true),
    ]);
    expect(jobs).toEqual([
      { unit: 'agent.service', verb: 'restart', want: 'active', seconds: 120, owners: ['env', 'limits'] },
    ]);
  });

  test("a drop-in joins its unit's own restart, which keeps the unit's deadline", () => {
    const jobs = planJobs([
      loaded('agent', unit('agent.service'), live(), true),
      loaded('env', dropIn('agent.service'), live(), true),
    ]);
    expect(jobs).toEqual([
      { unit: 'agent.service', verb: 'restart', want: 'active', seconds: 30, owners: ['agent', 'env'] },
    ]);
  });

  test("a drop-in gives way to its unit's stop, and restarts nothing it did not write or that did not run", () => {
    const stop = planJobs([
      loaded('agent', unit('agent.service', { started: false })),
      loaded('env', dropIn('agent.service'), live(), true),
    ]);
    expect(stop.map((job) => [job.verb, job.owners])).toEqual([['stop', ['agent']]]);
    expect(planJobs([loaded('env', dropIn('agent.service'), live(), false)])).toEqual([]);
    const stopped = live({ activeState: 'inactive', subState: 'dead' });
    expect(planJobs([loaded('env', dropIn('agent.service'), stopped, true)])).toEqual([]);
    expect(planJobs([loaded('env', dropIn('probe@.service'), live(), true)])).toEqual([]);
  });
});
