/**
 * A process older than its content, and an apply's leftover intent, as the read words them and the
 * apply acts on them (issue 26 class 2: the plan was clean while the process ran the old content).
 */
import { sha256Hex } from '../../../../src/core/canonical';
import type { DropInSpec } from '../../../../src/linux/systemd-drop-in';
import { diffDropIn, summarizeDropIn } from '../../../../src/linux/systemd-drop-in';
import type { UnitSpec } from '../../../../src/linux/systemd-unit';
import type { LiveUnit } from '../../../../src/linux/unit-control';
import { diffUnit, settleSteps, summarizeUnit } from '../../../../src/linux/unit-diff';
import { dropInIsForeign, unitIsForeign } from '../../../../src/linux/unit-ownership';
import { parseReadScript } from '../../../../src/linux/unit-read-answer';
import { pendingWords, staleProcess } from '../../../../src/linux/unit-stale';
import { runningStatus } from '../../../support/unit-status';

const CONTENT = '[Service]\nExecStart=/bin/sleep infinity\n';
const spec: UnitSpec = {
  name: 'fa-u1.service',
  directory: '/etc/systemd/system',
  content: CONTENT,
  enabled: true,
  started: true,
  restartOn: 'r'.repeat(64),
  startTimeoutSeconds: 90,
  unmask: false,
};
const [OLD, NEW] = ['0'.repeat(64), '1'.repeat(64)];
const AT = Date.parse('2026-12-04T18:40:00Z') / 1000;

/** A running unit in sync with `spec`, whose run `I2` started at AT. */
const live = (over: Partial<LiveUnit> = {}, started: Partial<LiveUnit['status']> = {}): LiveUnit => ({
  status: runningStatus({ invocation: 'I2', startedAt: AT, ...started }),
  fileSha256: sha256Hex(CONTENT),
  restartOn: spec.restartOn,
  content: NEW,
  contentChangedAt: AT - 60,
  ...over,
});

describe('a process older than its content', () => {
  test.each([
    [
      'the run the apply recorded, its content since changed',
      { startedWith: { content: OLD, invocation: 'I2' } },
      true,
    ],
    ['the run the apply recorded, its content the same', { startedWith: { content: NEW, invocation: 'I2' } }, false],
    [
      'another run, the content as recorded, files older than it',
      { startedWith: { content: NEW, invocation: 'I1' } },
      false,
    ],
    // Restarted by hand with other content, then the declared file put back: the content is as recorded, the run not.
    [
      'another run, the content as recorded, files put back after it started',
      { startedWith: { content: NEW, invocation: 'I1' }, contentChangedAt: AT + 1 },
      true,
    ],
    ['another run, content changed before it started', { startedWith: { content: OLD, invocation: 'I1' } }, false],
    [
      'another run, content changed after it started',
      { startedWith: { content: OLD, invocation: 'I1' }, contentChangedAt: AT + 5 },
      true,
    ],
    ['an earlier version recorded no run: files older than the process', {}, false],
    ['an earlier version recorded no run: files changed in the second it started', { contentChangedAt: AT }, false],
    ['an earlier version recorded no run: files changed after it started', { contentChangedAt: AT + 1 }, true],
    ['its files could not all be read', { content: undefined, startedWith: { content: OLD, invocation: 'I2' } }, false],
  ])('%s: stale is %p', (_, over, stale) => {
    expect(staleProcess(live(over)) !== undefined).toBe(stale);
  });

  test('is drift in words, restarts the unit, and is named beside a reload systemd awaits, as the apply does', () => {
    const stale = live({ startedWith: { content: OLD, invocation: 'I2' }, contentChangedAt: AT + 30 });
    expect(summarizeUnit(spec, 'h:22', stale, diffUnit(spec, stale))).toBe(
      'unit fa-u1.service on h:22 (active/running): restart pending: its process started before its content ' +
        'changed (at 2026-12-04T18:40:30Z)',
    );
    expect(diffUnit(spec, stale)).toEqual({
      process: { live: 'started before its content changed', want: 'restarted with it' },
    });
    expect(settleSteps(spec, stale, false)).toMatchObject({ restart: true });
    const unloaded = live({ startedWith: { content: OLD, invocation: 'I2' } }, { needDaemonReload: true });
    // The apply reloads, then restarts it (settleSteps on the state after the reload): the plan says both.
    expect(Object.keys(diffUnit(spec, unloaded))).toEqual(['NeedDaemonReload', 'process']);
    expect(summarizeUnit(spec, 'h:22', unloaded, diffUnit(spec, unloaded))).toMatch(
      /^unit fa-u1\.service on h:22 \(active\/running\): restart pending: its process started before its content/,
    );
    const stopped = live(
      { startedWith: { content: OLD, invocation: 'I2' } },
      { activeState: 'inactive', subState: 'dead' },
    );
    expect(pendingWords(stopped, false)).toBeUndefined();
  });
});

describe('an interrupted apply', () => {
  const intent = { since: AT, sha256: sha256Hex(CONTENT), restart: true };

  test('its intent is drift named first, even when everything else reads as declared, and restarts the unit', () => {
    const left = live({ intent });
    expect(diffUnit(spec, left)).toEqual({
      apply: { live: 'interrupted at 2026-12-04T18:40:00Z; restart pending', want: 'finished' },
    });
    expect(summarizeUnit(spec, 'h:22', left, diffUnit(spec, left))).toBe(
      'unit fa-u1.service on h:22 (active/running): restart pending since an interrupted apply ' +
        '(content changed at 2026-12-04T18:40:00Z)',
    );
    expect(settleSteps(spec, left, false)).toMatchObject({ restart: true });
    expect(settleSteps(spec, live({ intent: { ...intent, restart: false } }), false)).toMatchObject({ restart: false });
  });

  test('a unit stopped before its file was written reads absent with the pending restart', () => {
    const absent = live(
      { intent, fileSha256: undefined, content: undefined },
      { loadState: 'not-found', activeState: 'inactive' },
    );
    expect(summarizeUnit(spec, 'h:22', absent, diffUnit(spec, absent))).toBe(
      'unit fa-u1.service on h:22 is absent: restart pending since an interrupted apply ' +
        '(content changed at 2026-12-04T18:40:00Z)',
    );
  });

  test('its intent proves a unit, an instance and a drop-in the stack’s, so none is ever refused as foreign', () => {
    const noRecord = live({ restartOn: undefined });
    expect(unitIsForeign(noRecord, true)).toBe(true);
    expect(unitIsForeign({ ...noRecord, intent }, true)).toBe(false);
    expect(unitIsForeign({ ...noRecord, fileSha256: undefined, intent }, false)).toBe(false);
    expect(dropInIsForeign(noRecord)).toBe(true);
    expect(dropInIsForeign({ ...noRecord, intent })).toBe(false);
  });

  test("a drop-in's summary names its unit's pending restart", () => {
    const dropIn: DropInSpec = {
      unit: 'fa-u1.service',
      name: '10-v',
      directory: '/etc/systemd/system',
      content: '[Service]\nEnvironment=V=b\n',
      startTimeoutSeconds: 90,
    };
    const left = live({ intent, fileSha256: sha256Hex(dropIn.content), restartOn: 'cdktf-homelab' });
    expect(summarizeDropIn(dropIn, 'h:22', left, diffDropIn(dropIn, left))).toBe(
      'drop-in /etc/systemd/system/fa-u1.service.d/10-v.conf on h:22: fa-u1.service: restart pending since an ' +
        'interrupted apply (content changed at 2026-12-04T18:40:00Z)',
    );
  });
});

describe('the read', () => {
  test('digests the files systemd loaded each unit from, and reads the record and intent', () => {
    const unit = { unit: 'a.service', file: '/d/a.service', record: '/r/a.service', intent: '/i/a.service' };
    const stdout = [
      'LoadState=loaded\nActiveState=active\nSubState=running\nUnitFileState=enabled\nNeedDaemonReload=no',
      'InvocationID=f00d\nExecMainStartTimestamp=Fri 2026-12-04 18:40:00 UTC',
      'FragmentPath=/d/a.service\nDropInPaths=/d/a.service.d/10-v.conf /run/a.service.d/x.conf',
      '@@cdktf-homelab:files',
      `${'a'.repeat(64)}  /d/a.service\n${'b'.repeat(64)}  /d/a.service.d/10-v.conf`,
      `${'c'.repeat(64)}  /run/a.service.d/x.conf`,
      '@@cdktf-homelab:stats',
      `${AT - 10} 8:1 /d/a.service\n${AT + 10} 8:2 /d/a.service.d/10-v.conf\n${AT - 20} 8:3 /run/a.service.d/x.conf`,
      '@@cdktf-homelab:restart-on',
      `0 ${spec.restartOn} ${OLD} f00d`,
      '@@cdktf-homelab:intents',
      `0 cdktf-homelab-intent since=${AT} sha256=- restart=pending unit=a.service`,
      '@@cdktf-homelab:unit-files\n@@cdktf-homelab:now\n0\n',
    ].join('\n');
    const [read] = parseReadScript(stdout, [unit]) ?? [];
    expect(read).toMatchObject({
      restartOn: spec.restartOn,
      startedWith: { content: OLD, invocation: 'f00d' },
      intent: { since: AT, restart: true },
      content: sha256Hex(
        `${'a'.repeat(64)}  /d/a.service\n${'b'.repeat(64)}  /d/a.service.d/10-v.conf\n` +
          `${'c'.repeat(64)}  /run/a.service.d/x.conf\n`,
      ),
      contentChangedAt: AT + 10,
      status: { invocation: 'f00d', startedAt: AT },
    });
    const [unreadable] = parseReadScript(stdout.replace(/^c+ {2}\/run.*\n/m, ''), [unit]) ?? [];
    expect(unreadable?.content).toBeUndefined();
    // A generator's file is rewritten on every daemon-reload: its mtime says nothing of a change.
    const generated = stdout
      .replace(`${AT - 20} /run/a.service.d/x.conf`, `${AT + 100} /run/a.service.d/x.conf`)
      .replaceAll('/run/a.service.d/x.conf', '/run/systemd/generator/a.service.d/x.conf');
    const [fromGenerator] = parseReadScript(generated, [unit]) ?? [];
    expect(fromGenerator?.contentChangedAt).toBe(AT + 10);
  });
});
