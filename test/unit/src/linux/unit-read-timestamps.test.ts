/**
 * The read's times to the microsecond: the process start from `systemctl show --timestamp=us+utc` and each file's
 * ctime from `stat -c %.9Z`, so content changed in the second of a restart by hand reads stale (in whole seconds
 * it read in sync: contract systemd-stale.test.ts). A systemctl that refuses the option (before 248) still answers,
 * in whole seconds, through the plain `show`; both forms parse.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LiveUnit } from '../../../../src/linux/unit-control';
import { statsByPath } from '../../../../src/linux/unit-loaded';
import { hostNow } from '../../../../src/linux/read-lines';
import { readScript } from '../../../../src/linux/unit-read';
import { isoTime, staleProcess } from '../../../../src/linux/unit-stale';
import { parseShow } from '../../../../src/linux/unit-state';

const START = Date.parse('2026-12-06T19:29:17Z') / 1000;

/** The script's `systemctl show` line under /bin/sh with `systemctl` a stand-in: `old` refuses --timestamp. */
const shownBy = (old: boolean): { shown: string; calls: string[] } => {
  const dir = mkdtempSync(join(tmpdir(), 'unit-read-ts-'));
  try {
    const fake = join(dir, 'systemctl');
    writeFileSync(
      fake,
      [
        '#!/bin/sh',
        `echo "$*" >> ${dir}/calls`,
        'case " $* " in',
        `*" --timestamp=us+utc "*) [ ${old ? 1 : 0} = 0 ] || { echo "systemctl: unrecognized option" >&2; exit 1; }`,
        "  echo 'ExecMainStartTimestamp=Sun 2026-12-06 19:29:17.845287 UTC' ;;",
        "*) echo 'ExecMainStartTimestamp=Sun 2026-12-06 19:29:17 UTC' ;;",
        'esac',
      ].join('\n'),
    );
    chmodSync(fake, 0o755);
    const line =
      readScript([{ unit: 'a.service' }])
        .split('\n')
        .find((l) => l.startsWith('s=$(')) ?? '';
    const shown = execFileSync('/bin/sh', ['-c', `${line}; printf '%s' "$s"`], {
      encoding: 'utf8',
      env: { ...process.env, PATH: `${dir}:${process.env.PATH ?? ''}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const calls = execFileSync('cat', [join(dir, 'calls')], { encoding: 'utf8' })
      .trim()
      .split('\n');
    return { shown, calls };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

test('the start is read to the microsecond, and in whole seconds from a systemctl that refuses the option', () => {
  const now = shownBy(false);
  expect(now.calls).toHaveLength(1);
  expect(parseShow(now.shown).startedAt).toBeCloseTo(START + 0.845287, 6);
  const old = shownBy(true);
  expect(old.calls).toHaveLength(2);
  expect(old.calls[1]).not.toContain('--timestamp');
  expect(parseShow(old.shown).startedAt).toBe(START);
});

test("a file's ctime is read to the nanosecond, its link's too, and whole seconds still parse", () => {
  const stats = statsByPath(
    `${START}.123456789 8:1 /a.conf\nl${START}.9 /a.conf\n${START} 8:2 /b.conf\nl${START} /b.conf\n`,
  );
  expect(stats.get('/a.conf')?.time).toBeCloseTo(START + 0.9, 6);
  expect(stats.get('/b.conf')).toEqual({ time: START, file: '8:2' });
});

test('content changed in the second of the start, after it, is a stale process; before it is not', () => {
  const running = (changedAt: number): LiveUnit =>
    ({
      status: { startedAt: START + 0.5, invocation: 'b' },
      content: 'x',
      contentChangedAt: changedAt,
      startedWith: { invocation: 'a', content: 'x' },
    }) as unknown as LiveUnit;
  expect(staleProcess(running(START + 0.9))).toEqual({ changedAt: START + 0.9 });
  expect(staleProcess(running(START + 0.1))).toBeUndefined();
  expect(isoTime(START + 0.9)).toBe('2026-12-06T19:29:17Z');
});

// Regression (CI at 21946f7): the host's clock in whole seconds against a state change to the microsecond counted up
// to a second short, and a unit 2.5 s into a 1 s deadline read in sync (contract systemd-deadlines.test.ts).
test("the host's clock is read past the second, and in whole seconds from a date without %N", () => {
  const line =
    readScript([{ unit: 'a.service' }])
      .split('\n')
      .find((l) => l.includes('date -u')) ?? '';
  const printed = execFileSync('/bin/sh', ['-c', line], { encoding: 'utf8' }).split('\n')[1] ?? '';
  expect(printed).toMatch(/^\d+\.\d{9}$/);
  expect(hostNow(printed)).toBeCloseTo(Date.now() / 1000, 0);
  expect(hostNow('1796600002.95\n')).toBe(1796600002.95);
  expect(hostNow('1796600002.%N')).toBe(1796600002);
  expect(hostNow('')).toBeNaN();
});
