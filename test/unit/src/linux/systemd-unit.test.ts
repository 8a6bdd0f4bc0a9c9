import { parseAs } from '../../../../src/core/parse';
import { unitIdentity } from '../../../../src/linux/systemd-unit';
import { sha256Hex } from '../../../../src/core/canonical';
import type { LiveUnit } from '../../../../src/linux/unit-control';
import type { UnitSpec } from '../../../../src/linux/systemd-unit';
import {
  diffUnit,
  enableNeedsReload,
  enableStep,
  type EnableStep,
  settleSteps,
  summarizeUnit,
} from '../../../../src/linux/unit-diff';
import { parseReadScript } from '../../../../src/linux/unit-read';
import type { UnitLinks } from '../../../../src/linux/unit-links';
import type { UnitStatus } from '../../../../src/linux/unit-state';

const content = '[Service]\nType=oneshot\nExecStart=/usr/bin/true\n';
const spec: UnitSpec = {
  name: 'check.service',
  directory: '/etc/systemd/system',
  content,
  enabled: false,
  started: false,
  restartOn: 'r1',
  startTimeoutSeconds: 90,
  unmask: false,
};
const status = (over: Partial<UnitStatus> = {}): UnitStatus => ({
  loadState: 'loaded',
  activeState: 'inactive',
  subState: 'dead',
  unitFileState: 'disabled',
  needDaemonReload: false,
  ...over,
});
const live = (over: Partial<UnitStatus> = {}, rest: Partial<LiveUnit> = {}): LiveUnit => ({
  status: status(over),
  fileSha256: sha256Hex(content),
  restartOn: 'r1',
  ...rest,
});

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

describe('enable and disable, decided before the reload', () => {
  test.each<[string, Partial<UnitSpec>, Partial<UnitStatus>, boolean, EnableStep | undefined]>([
    ['a disabled unit declared enabled is enabled', { enabled: true }, {}, false, 'enable'],
    // Regression: `enable` only adds links, so a changed WantedBy= left the old target's link.
    [
      'an enabled unit is re-enabled after its file changed, so its links follow its new [Install]',
      { enabled: true },
      { unitFileState: 'enabled' },
      true,
      'reenable',
    ],
    ['a disabled unit whose file changed is enabled', { enabled: true }, {}, true, 'enable'],
    ['an enabled unit left as it is stays so', { enabled: true }, { unitFileState: 'enabled' }, false, undefined],
    ['an enabled unit declared disabled is disabled', {}, { unitFileState: 'enabled' }, false, 'disable'],
    [
      'a new unit, which no read could see enabled, is enabled',
      { enabled: true },
      { loadState: 'not-found', unitFileState: '' },
      true,
      'enable',
    ],
    [
      'an instance of a template not loaded yet is enabled',
      { enabled: true },
      { loadState: 'not-found', unitFileState: '' },
      false,
      'enable',
    ],
    [
      'a masked unit being unmasked is enabled',
      { enabled: true },
      { loadState: 'masked', unitFileState: 'masked' },
      false,
      'enable',
    ],
    [
      'a unit enabled until reboot alone declared enabled is enabled for good',
      { enabled: true },
      { unitFileState: 'enabled-runtime' },
      false,
      'enable',
    ],
    [
      'a unit enabled until reboot alone declared disabled is disabled',
      {},
      { unitFileState: 'enabled-runtime' },
      false,
      'disable',
    ],
    ['a static unit left as it is is neither', { enabled: true }, { unitFileState: 'static' }, false, undefined],
    [
      'a static unit whose file changed is enabled (systemctl only warns)',
      { enabled: true },
      { unitFileState: 'static' },
      true,
      'enable',
    ],
  ])('%s', (_, specOver, statusOver, written, expected) => {
    expect(enableStep({ ...spec, ...specOver }, live(statusOver), written)).toBe(expected);
  });

  const made = ['multi-user.target.wants/check.service'];
  // Regression: list-unit-files said `enabled` with a link by hand in another target, and nothing removed it.
  test.each<[string, boolean, Partial<UnitStatus>, UnitLinks, boolean, EnableStep | undefined]>([
    [
      'an enabled unit with a link its [Install] does not make is re-enabled',
      true,
      { unitFileState: 'enabled' },
      { etc: [...made, 'graphical.target.wants/check.service'], run: [], install: made },
      false,
      'reenable',
    ],
    [
      'one with such a link under /run alone is re-enabled',
      true,
      { unitFileState: 'enabled' },
      { etc: made, run: ['graphical.target.wants/check.service'], install: made },
      false,
      'reenable',
    ],
    [
      'an enabled unit missing a link its [Install] makes is re-enabled',
      true,
      { unitFileState: 'enabled' },
      { etc: [], run: [], install: made },
      false,
      'reenable',
    ],
    [
      'one with its links as its [Install] makes them, /run too, is left',
      true,
      { unitFileState: 'enabled' },
      { etc: made, run: made, install: made },
      false,
      undefined,
    ],
    [
      'a unit declared disabled with any link is disabled',
      false,
      { unitFileState: 'disabled' },
      { etc: made, run: [], install: made },
      false,
      'disable',
    ],
    [
      "a unit enabled until reboot alone whose file changed is re-enabled: its /run links are the old [Install]'s",
      true,
      { unitFileState: 'enabled-runtime' },
      { etc: [], run: made, install: made },
      true,
      'reenable',
    ],
    [
      'links are not judged for a static unit',
      true,
      { unitFileState: 'static' },
      { etc: made, run: [], install: [] },
      false,
      undefined,
    ],
  ])('%s', (_, enabled, statusOver, links, written, expected) => {
    expect(enableStep({ ...spec, enabled }, live(statusOver, { links }), written)).toBe(expected);
  });

  test('only an instance or a unit with Alias= or Also= needs a reload to show its enablement', () => {
    expect(enableNeedsReload(spec)).toBe(false);
    expect(enableNeedsReload({ ...spec, content: `${content}[Install]\nAlias=other.service\n` })).toBe(true);
    expect(enableNeedsReload({ ...spec, content: undefined })).toBe(true);
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
        /^unit check.service on h:22 is masked \(masked is true, want false; .*\); /.source +
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
