/**
 * Whether systemd loads the declared file (unit-loaded.ts), as a truth table over what the read
 * reports, and how the plan's read, diff and summary name a file loaded in its place.
 */
import { diffUnit, summarizeUnit } from '../../../../src/linux/unit-diff';
import type { DesiredUnit } from '../../../../src/linux/unit-control';
import type { FileStat } from '../../../../src/linux/file-stat';
import { type Declared, overriddenOf, overriddenWords, statsByPath } from '../../../../src/linux/unit-loaded';
import { parseReadScript } from '../../../../src/linux/unit-read-answer';
import type { UnitStatus } from '../../../../src/linux/unit-state';
import { runningStatus } from '../../../support/unit-status';

const status = runningStatus;
const stats = (files: Record<string, string>): Map<string, FileStat> =>
  new Map(Object.entries(files).map(([path, file]) => [path, { time: 0, file }]));

const LOCAL = '/usr/local/lib/systemd/system/a.service';
const ETC = '/etc/systemd/system/a.service';
const unitFile: Declared = { as: 'unit', path: LOCAL };

describe('overriddenOf, for a unit', () => {
  test.each<[string, Partial<UnitStatus>, Record<string, string>, string | undefined]>([
    ['loaded from the declared file is not overridden', { fragmentPath: LOCAL }, { [LOCAL]: '1:1' }, undefined],
    [
      'loaded from a copy ranked higher is overridden by it',
      { fragmentPath: ETC },
      { [LOCAL]: '1:1', [ETC]: '1:2' },
      ETC,
    ],
    // Measured on Debian 12: a unit written to /usr/lib/systemd/system reads FragmentPath=/lib/systemd/system/….
    [
      'named by another path to the same file is not overridden',
      { fragmentPath: '/lib/systemd/system/a.service' },
      { '/usr/lib/systemd/system/a.service': '8:3', '/lib/systemd/system/a.service': '8:3' },
      undefined,
    ],
    // The apply writes it and its read-back judges again.
    ['whose declared file is not there yet is not judged', { fragmentPath: ETC }, { [ETC]: '1:2' }, undefined],
    [
      'awaiting a reload is not judged',
      { fragmentPath: ETC, needDaemonReload: true },
      { [LOCAL]: '1:1', [ETC]: '1:2' },
      undefined,
    ],
    ['masked is not judged', { fragmentPath: ETC, loadState: 'masked is not judged' }, { [LOCAL]: '1:1' }, undefined],
    ['not loaded is not judged', { loadState: 'not-found' }, { [LOCAL]: '1:1' }, undefined],
  ])('a unit %s', (_, over, files, by) => {
    const found = overriddenOf(unitFile, status(over), stats(files));
    expect(found?.by).toBe(by);
  });
});

const DROP_IN = '/etc/systemd/system/a.service.d/10-v.conf';
const CONTROL = '/etc/systemd/system.control/a.service.d/10-v.conf';
const dropIn: Declared = { as: 'drop-in', path: DROP_IN };

describe('overriddenOf, for a drop-in', () => {
  test.each<[string, Partial<UnitStatus>, Record<string, string>, string | undefined | null]>([
    ["listed among its unit's drop-ins is not overridden", { dropInPaths: [DROP_IN] }, { [DROP_IN]: '1:1' }, null],
    [
      'listed by another path to it is not overridden',
      { dropInPaths: ['/x/a.service.d/10-v.conf'] },
      { [DROP_IN]: '1:1', '/x/a.service.d/10-v.conf': '1:1' },
      null,
    ],
    [
      'left out for a same-name one ranked higher is overridden by it',
      { dropInPaths: [CONTROL] },
      { [DROP_IN]: '1:1', [CONTROL]: '1:2' },
      CONTROL,
    ],
    [
      'left out with none of its name listed (a /dev/null link) is overridden',
      { dropInPaths: [] },
      { [DROP_IN]: '1:1' },
      undefined,
    ],
    [
      'left out while its unit awaits a reload is not judged',
      { dropInPaths: [], needDaemonReload: true },
      { [DROP_IN]: '1:1' },
      null,
    ],
    ['not on disk is not judged', { dropInPaths: [CONTROL] }, { [CONTROL]: '1:2' }, null],
  ])('a drop-in %s', (_, over, files, by) => {
    const found = overriddenOf(dropIn, status(over), stats(files));
    if (by === null) expect(found).toBeUndefined();
    else expect(found).toEqual(by === undefined ? { declared: dropIn } : { declared: dropIn, by });
  });
});

describe('what the plan says', () => {
  test('a same-name drop-in ranked higher: remove it, or declare its directory', () => {
    expect(overriddenWords({ declared: dropIn, by: CONTROL })).toBe(
      `systemd loads ${CONTROL} instead of ${DROP_IN}, a file the stack does not manage: ` +
        'remove it, or declare directory /etc/systemd/system.control',
    );
    expect(overriddenWords({ declared: dropIn })).toMatch(/^systemd does not load .*a \/dev\/null link/);
  });

  test('a unit copy in a unit directory: remove it, or declare that directory', () => {
    expect(overriddenWords({ declared: unitFile, by: ETC })).toBe(
      `systemd loads ${ETC} instead of ${LOCAL}, a file the stack does not manage: ` +
        'remove it, or declare directory /etc/systemd/system',
    );
  });

  test("an instance's own file: only remove it, since declaring its template elsewhere would not win", () => {
    const template: Declared = { as: 'unit', path: '/etc/systemd/system/p@.service' };
    expect(overriddenWords({ declared: template, by: '/etc/systemd/system/p@a.service' })).toMatch(/: remove it$/);
  });

  test('a file named with control characters is shown by their codes', () => {
    expect(overriddenWords({ declared: unitFile, by: '/etc/systemd/system/a\u001b[31m.service' })).not.toContain(
      '\u001b',
    );
  });

  const spec: DesiredUnit = {
    name: 'a.service',
    directory: '/usr/local/lib/systemd/system',
    content: '[Service]\nExecStart=/bin/true\n',
    enabled: true,
    started: true,
    restartOn: '0'.repeat(64),
    startTimeoutSeconds: 90,
    unmask: false,
  };

  test('the read of a shadowed unit differs, naming the file systemd loads, in words and in the diff', () => {
    const entry = { unit: 'a.service', file: LOCAL, declared: unitFile };
    const stdout = [
      `LoadState=loaded\nActiveState=active\nSubState=running\nUnitFileState=enabled\nNeedDaemonReload=no`,
      `FragmentPath=${ETC}\nDropInPaths=`,
      '@@cdktf-homelab:files',
      `${'a'.repeat(64)}  ${LOCAL}\n${'b'.repeat(64)}  ${ETC}`,
      '@@cdktf-homelab:stats',
      `100 2049:11 s40 ${LOCAL}\n100 2049:12 s41 ${ETC}`,
      '@@cdktf-homelab:restart-on\n@@cdktf-homelab:intents\n@@cdktf-homelab:unit-files\n@@cdktf-homelab:now\n200\n',
    ].join('\n');
    const [live] = parseReadScript(stdout, [entry]) ?? [];
    if (live === undefined) throw new Error('not parsed');
    const diff = diffUnit(spec, live);
    expect(diff.loaded).toEqual({ live: ETC, want: LOCAL });
    expect(summarizeUnit(spec, 'h:22', live, diff)).toBe(
      `unit a.service on h:22 (active/running): shadowed: systemd loads ${ETC} instead of ${LOCAL}, a file the ` +
        'stack does not manage: remove it, or declare directory /etc/systemd/system; the apply refuses it until ' +
        'then; differs: file is ' +
        `"not the declared content (40 bytes)", want "${String((diff.file as { want: string }).want)}"`,
    );
  });
});

test("a path is dated by the later of its file's ctime and, for a symlink, its own", () => {
  const stats = statsByPath(
    ['100 1:2 /etc/a.conf', '200 1:3 /etc/b conf', 'l300 /etc/a.conf', 'l150 /etc/b conf', 'l999 /etc/none'].join('\n'),
  );
  expect([...stats]).toEqual([
    ['/etc/a.conf', { time: 300, file: '1:2' }],
    ['/etc/b conf', { time: 200, file: '1:3' }],
  ]);
});
