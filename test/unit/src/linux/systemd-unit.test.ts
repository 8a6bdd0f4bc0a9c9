/**
 * A unit's diff and summary against its read (file, enablement, links, running state, masks, start deadlines),
 * the apply's settle steps, and the handler's re-check of an identity: the pure core of what a plan says of a unit.
 */
import { parseAs } from '../../../../src/core/parse';
import { unitIdentity } from '../../../../src/linux/systemd-unit';
import type { UnitSpec } from '../../../../src/linux/systemd-unit';
import { diffUnit, settleSteps, summarizeUnit } from '../../../../src/linux/unit-diff';
import { parseReadScript } from '../../../../src/linux/unit-read-answer';
import type { UnitStatus } from '../../../../src/linux/unit-state';
import { live, spec } from './unit-fixtures';

describe('diffUnit', () => {
  test('a converged unit is in sync', () => {
    expect(diffUnit(spec, live())).toEqual({});
  });

  test('a started:false oneshot mid-run is in sync', () => {
    expect(diffUnit(spec, live({ activeState: 'activating', subState: 'start' }))).toEqual({});
  });

  test('an active started:false unit is drift', () => {
    expect(diffUnit(spec, live({ activeState: 'active', subState: 'running' }))).toEqual({
      running: { live: 'active/running', want: 'stopped' },
    });
  });

  test('file, enabled and NeedDaemonReload drift are each named', () => {
    const changes = diffUnit(
      spec,
      live({ unitFileState: 'enabled', needDaemonReload: true }, { fileSha256: 'ab'.repeat(32) }),
    );
    expect(Object.keys(changes)).toEqual(['file', 'enabled', 'NeedDaemonReload']);
  });

  // Regression: a unit enabled with --runtime alone (links under /run, gone at reboot) read enabled.
  test.each([true, false])('a unit enabled until reboot alone is drift when declared enabled %s', (enabled) => {
    expect(diffUnit({ ...spec, enabled }, live({ unitFileState: 'enabled-runtime' }))).toEqual({
      enabled: { live: 'until reboot (/run only)', want: enabled },
    });
  });

  // Regression: a link by hand in another target read `enabled` from list-unit-files, and the plan was clean.
  test('links its [Install] does not make are drift, named in words after the state', () => {
    const wanted = 'multi-user.target.wants/check.service';
    const links = { etc: ['graphical.target.wants/check.service', wanted], run: [], install: [wanted] };
    const drifted = live({ unitFileState: 'enabled' }, { links });
    const enabled = { ...spec, enabled: true };
    const diff = diffUnit(enabled, drifted);
    expect(diff).toEqual({
      links: {
        live: ['/etc/systemd/system/graphical.target.wants/check.service', `/etc/systemd/system/${wanted}`],
        want: [`/etc/systemd/system/${wanted}`],
      },
    });
    expect(summarizeUnit(enabled, 'h:22', drifted, diff)).toBe(
      'unit check.service on h:22 (inactive/dead): links its [Install] does not make: ' +
        '/etc/systemd/system/graphical.target.wants/check.service',
    );
    expect(diffUnit(enabled, live({ unitFileState: 'enabled' }, { links: { ...links, etc: [wanted] } }))).toEqual({});
  });

  test('a link of a unit declared disabled is drift; while enabled differs, that alone is named', () => {
    const links = { etc: ['graphical.target.wants/check.service'], run: [], install: [] };
    expect(Object.keys(diffUnit(spec, live({ unitFileState: 'disabled' }, { links })))).toEqual(['links']);
    expect(Object.keys(diffUnit(spec, live({ unitFileState: 'enabled' }, { links })))).toEqual(['enabled']);
  });

  test('a moved restartOn is drift only while the unit runs', () => {
    const running = { ...spec, started: true, restartOn: 'r2' };
    expect(diffUnit(running, live({ activeState: 'active', subState: 'running' }))).toHaveProperty('restartOn');
    expect(diffUnit({ ...spec, restartOn: 'r2' }, live())).toEqual({});
  });

  test('the summary names the unit, the host and its state', () => {
    const drifted = live({ activeState: 'inactive', subState: 'dead' });
    const startedSpec = { ...spec, started: true };
    expect(summarizeUnit(startedSpec, '10.0.0.2:22', drifted, diffUnit(startedSpec, drifted))).toBe(
      'unit check.service on 10.0.0.2:22 (inactive/dead) differs: running is "inactive/dead", want "running"',
    );
  });
});

describe('apply steps', () => {
  const none = { start: false, stop: false, restart: false };
  test.each<[string, Partial<UnitSpec>, Partial<UnitStatus>, string | undefined, boolean, Partial<typeof none>]>([
    [
      'a started:false oneshot mid-run is not stopped',
      {},
      { activeState: 'activating', subState: 'start' },
      'r1',
      true,
      {},
    ],
    [
      'an active started:false unit is stopped',
      {},
      { activeState: 'active', subState: 'running' },
      'r1',
      false,
      { stop: true },
    ],
    [
      'a crash loop declared started:false is stopped',
      {},
      { activeState: 'activating', subState: 'auto-restart' },
      'r1',
      false,
      { stop: true },
    ],
    [
      'a unit already activating is not started twice',
      { started: true },
      { activeState: 'activating', subState: 'start' },
      'r1',
      false,
      {},
    ],
    ['a stopped started:true unit is started', { started: true }, {}, 'r1', false, { start: true }],
    [
      'a running unit whose file changed is restarted',
      { started: true },
      { activeState: 'active' },
      'r1',
      true,
      { restart: true },
    ],
    [
      'a running unit whose restartOn moved is restarted',
      { started: true, restartOn: 'r2' },
      { activeState: 'active' },
      'r1',
      false,
      { restart: true },
    ],
    [
      'a running unit with nothing recorded yet is left running',
      { started: true },
      { activeState: 'active' },
      undefined,
      false,
      {},
    ],
  ])('%s', (_, specOver, statusOver, recorded, written, expected) => {
    expect(settleSteps({ ...spec, ...specOver }, live(statusOver, { restartOn: recorded }), written)).toEqual({
      ...none,
      ...expected,
    });
  });
});

describe('the handler re-checks what it is given, with the synth rules', () => {
  test.each([
    [
      'a name that walks out of the directory',
      { name: '../../../root/.ssh/authorized_keys', directory: '/etc/systemd/system' },
      /identity\.name: must be a name ending in a unit type/,
    ],
    ['a name without a unit type', { name: 'authorized_keys', directory: '/etc/systemd/system' }, /identity\.name: /],
    [
      'a directory with ..',
      { name: 'a.service', directory: '/etc/systemd/../../root' },
      /identity\.directory: must be a path without \.\./,
    ],
    [
      'a relative directory',
      { name: 'a.service', directory: 'etc/systemd' },
      /identity\.directory: must be an absolute path/,
    ],
  ])('refuses %s', (_, identity, message) => {
    expect(() => parseAs(unitIdentity, identity, 'identity')).toThrow(message);
  });
});

describe('masked units', () => {
  test('a masked unit reads as masked in the diff and the summary, which says how to unmask it', () => {
    const masked = live(
      { loadState: 'masked', unitFileState: 'masked', activeState: 'inactive' },
      { fileSha256: undefined },
    );
    const want = { ...spec, enabled: true };
    const changes = diffUnit(want, masked);
    expect(changes).toMatchObject({ masked: { live: true, want: false } });
    expect(changes).not.toHaveProperty('enabled');
    expect(summarizeUnit(want, 'h:22', masked, changes)).toMatch(
      new RegExp(
        /^unit check.service on h:22 is masked \(masked is true, want false; .*\); the apply refuses it: /.source +
          /set unmask: true to let apply unmask it, or run systemctl unmask check.service on the host$/.source,
      ),
    );
  });
});

describe('start deadlines', () => {
  const started = { ...spec, started: true, startTimeoutSeconds: 60 };
  const activating = (seconds: number) =>
    live({ activeState: 'activating', subState: 'start' }, { stateSeconds: seconds });

  test('a started unit activating within its deadline is in sync', () => {
    expect(diffUnit(started, activating(30))).toEqual({});
  });

  test('a started unit still activating past its deadline is drift, and the summary says for how long', () => {
    const stuck = activating(300);
    const changes = diffUnit(started, stuck);
    expect(changes).toEqual({ running: { live: 'activating/start for 5 min', want: 'running' } });
    expect(summarizeUnit(started, 'h:22', stuck, changes)).toBe(
      'unit check.service on h:22 (activating/start for 5 min) differs: running is "activating/start for 5 ' +
        'min", want "running"',
    );
  });

  test('a started:false oneshot mid-run stays in sync however long it runs', () => {
    expect(diffUnit(spec, activating(3600))).toEqual({});
  });

  test('the read parses when each unit entered its state against the host clock', () => {
    const show =
      'LoadState=loaded\nActiveState=activating\nSubState=start\nUnitFileState=static\nNeedDaemonReload=no\nJob=75\n' +
      'StateChangeTimestamp=Wed 2026-12-02 15:43:45 UTC\n';
    const stdout =
      `${show}@@cdktf-homelab:files\n@@cdktf-homelab:restart-on\n@@cdktf-homelab:unit-files\n` +
      `@@cdktf-homelab:now\n${Date.parse('2026-12-02T15:48:45Z') / 1000}\n`;
    const [unit] = parseReadScript(stdout, [{ unit: 'a.service' }]) ?? [];
    expect(unit?.stateSeconds).toBe(300);
    expect(unit?.status.job).toBe('75');
  });
});
