/**
 * The one list of systemd's unit directories (src/linux/unit-directories.ts) and every list derived from it. Three
 * lists kept by hand drifted (the read ranked /usr/lib over /lib, pid1 the other way round); each derived list is
 * spelled out here, so an edit of the one list that changes a use shows here, and the root helper's `DIRS` text, and
 * so its version, is the one hosts have installed.
 */
import { execFileSync } from 'node:child_process';
import { ROOT_HELPER_BODY } from '../../../../src/linux/root-helper-script';
import {
  DROP_IN_SEARCH,
  UNIT_DIRECTORIES,
  UNIT_FILE_SEARCH,
  UNIT_SEARCH_PATH,
} from '../../../../src/linux/unit-directories';
import { unitDirectoryRule } from '../../../../src/linux/unit-name';
import { templatePaths, UNLOADED_DROP_INS } from '../../../../src/linux/unloaded-drop-ins';

const [etc, etcControl, etcAttached] = [
  '/etc/systemd/system',
  '/etc/systemd/system.control',
  '/etc/systemd/system.attached',
];
const [run, runControl, runAttached] = [
  '/run/systemd/system',
  '/run/systemd/system.control',
  '/run/systemd/system.attached',
];
const [local, lib, usrLib] = ['/usr/local/lib/systemd/system', '/lib/systemd/system', '/usr/lib/systemd/system'];
const transient = '/run/systemd/transient';

test("the list is systemd 252's unit search path as systemd-analyze unit-paths printed it on the test host", () => {
  const generator = (suffix: string) => `/run/systemd/generator${suffix}`;
  expect(UNIT_SEARCH_PATH.map(({ path }) => path)).toEqual([
    ...[etcControl, runControl, transient, generator('.early'), etc, etcAttached, run, runAttached, generator('')],
    ...[local, lib, usrLib, generator('.late')],
  ]);
});

test("a template's file is searched in systemd's rank, generators aside: the first found is the instances' one", () => {
  const ranked = [etcControl, runControl, transient, etc, etcAttached, run, runAttached, local, lib, usrLib];
  expect(UNIT_FILE_SEARCH).toEqual(ranked);
  expect(templatePaths('t@.service')).toEqual(ranked.map((directory) => `${directory}/t@.service`));
});

test('a drop-in is searched so, but /usr/lib before /lib, which is /usr/lib on a merged-/usr host', () => {
  const ranked = [etcControl, runControl, transient, etc, etcAttached, run, runAttached, local, usrLib, lib];
  expect(DROP_IN_SEARCH).toEqual(ranked);
  expect(UNLOADED_DROP_INS).toContain(`for d in ${ranked.join(' ')}; do`);
});

describe('where a unit or drop-in may be declared', () => {
  const writable = [etc, etcControl, etcAttached, run, runControl, runAttached, local, usrLib, lib];

  test('is every directory but the transient and generator ones, in the order the helper lists them', () => {
    expect(UNIT_DIRECTORIES).toEqual(writable);
    const places = UNIT_SEARCH_PATH.flatMap(({ write }) => (write === undefined ? [] : [write]));
    expect(places.sort((a, b) => a - b)).toEqual(writable.map((_, index) => index + 1));
  });

  test('synth takes each, with or without a trailing slash, and names them all when it refuses one', () => {
    for (const directory of writable)
      expect([unitDirectoryRule(directory), unitDirectoryRule(`${directory}/`)]).toEqual([undefined, undefined]);
    expect(unitDirectoryRule(transient)).toBe(`one of systemd's unit directories (${writable.join(', ')})`);
  });

  test("is the root helper's DIRS, its text byte for byte as before (so its version is unchanged)", () => {
    const lines = [
      "DIRS='/etc/systemd/system /etc/systemd/system.control /etc/systemd/system.attached /run/systemd/system'",
      'DIRS="$DIRS /run/systemd/system.control /run/systemd/system.attached /usr/local/lib/systemd/system"',
      'DIRS="$DIRS /usr/lib/systemd/system /lib/systemd/system"',
    ].join('\n');
    expect(ROOT_HELPER_BODY).toContain(
      `\nTYPES='service socket device mount automount swap target path timer slice scope'\n${lines}\nSTEPS=`,
    );
    expect(execFileSync('sh', ['-c', `${lines}; printf '%s' "$DIRS"`]).toString()).toBe(writable.join(' '));
  });
});

test('a merged-/usr directory is merged into one the read searches too', () => {
  const read = new Set(UNIT_SEARCH_PATH.filter((directory) => directory.read).map(({ path }) => path));
  const merged = UNIT_SEARCH_PATH.flatMap(({ path, mergedInto }) =>
    mergedInto === undefined ? [] : [[path, mergedInto]],
  );
  expect(merged).toEqual([[lib, usrLib]]);
  expect(merged.every(([path = '', into = '']) => read.has(path) && read.has(into))).toBe(true);
});
