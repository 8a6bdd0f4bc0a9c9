/**
 * The last reload read from a node's task list (issue 26 class 3): newest by start whatever the
 * list's order, PVE's own error rule, running as unknown, and blind only when nothing is listed
 * to a token that may see only its own tasks.
 */
import {
  auditsNode,
  type LastReload,
  lastReload,
  needsReload,
  reloadDiff,
  reloadsAgain,
  reloadWords,
} from '../../../../src/pve/network-reloads';

const upid = (starttime: number, pstart = 0x100, type = 'srvreload', id = 'networking') =>
  `UPID:n3:0001A2B3:${pstart.toString(16).toUpperCase().padStart(8, '0')}:${starttime
    .toString(16)
    .toUpperCase()
    .padStart(8, '0')}:${type}:${id}:root@pam!homelab:`;
const row = (starttime: number, status?: string, pstart?: number) => ({
  upid: upid(starttime, pstart),
  starttime,
  ...(status === undefined ? {} : { status, endtime: starttime + 2 }),
});

describe('lastReload', () => {
  test.each<[string, unknown[], boolean, LastReload['state']]>([
    ['none listed to an auditor is ok', [], true, 'ok'],
    ['none listed to a token without Sys.Audit is blind', [], false, 'blind'],
    ['OK is ok', [row(10, 'OK')], false, 'ok'],
    ['WARNINGS is ok', [row(10, 'WARNINGS: 2')], true, 'ok'],
    ['an error text is failed', [row(10, 'command ifreload -a failed: exit code 1')], true, 'failed'],
    ['unexpected status is failed', [row(10, 'unexpected status')], true, 'failed'],
    ['RUNNING is running', [row(10, 'RUNNING')], true, 'running'],
    ['no status is running', [row(10)], true, 'running'],
    ['a failure before a later OK is ok', [row(20, 'OK'), row(10, 'boom')], true, 'ok'],
    ['an OK listed first but older loses to a later failure', [row(10, 'OK'), row(20, 'boom')], true, 'failed'],
    ['the same second is ordered by pstart', [row(10, 'boom', 0x200), row(10, 'OK', 0x100)], true, 'failed'],
    ['another type of task is ignored', [{ upid: upid(30, 1, 'vzdump', '100'), status: 'boom' }], true, 'ok'],
    ['garbage rows are ignored', [null, 3, { upid: 'UPID:bad' }], true, 'ok'],
  ])('%s', (_name, rows, audits, state) => {
    expect(lastReload(rows, audits).state).toBe(state);
  });

  test('a failure keeps its UPID, end time and masked exit status', () => {
    expect(lastReload([row(10, 'wpa-psk hunter2 rejected')], true)).toEqual({
      state: 'failed',
      upid: upid(10),
      exitstatus: 'wpa-psk <redacted>',
      endtime: 12,
    });
  });
});

test('an apply reloads again only a failed or unfinished reload; a plan reads all but ok as drift', () => {
  const states: LastReload[] = [
    { state: 'ok' },
    { state: 'blind' },
    { state: 'running', upid: 'u', starttime: 0 },
    { state: 'failed', upid: 'u', exitstatus: 'x' },
  ];
  expect(states.map(reloadsAgain)).toEqual([false, false, true, true]);
  expect(states.map(needsReload)).toEqual([false, true, true, true]);
});

test('only ok needs no reload', () => {
  expect(
    [{ state: 'ok' }, { state: 'blind' }, { state: 'running', upid: 'u', starttime: 0 }].map((last) =>
      needsReload(last as LastReload),
    ),
  ).toEqual([false, true, true]);
});

test('the words name the node, the task, the exit status and the time, then what happens next', () => {
  const failed: LastReload = { state: 'failed', upid: 'UPID:x', exitstatus: 'boom', endtime: 1_800_000_000 };
  expect(reloadWords('n3', failed)).toBe(
    'the last network reload failed (task UPID:x, exit status boom) at 2027-01-15 08:00:00 UTC: ' +
      'the next apply reloads it',
  );
  expect(reloadWords('n3', failed, 'apply')).toMatch(/: reloading it again$/);
  expect(reloadWords('n3', { state: 'blind', token: 'the token in PVE_READ' })).toMatch(
    /Sys.Audit on \/nodes\/n3, and the token in PVE_READ does not .*grant it, then plan again$/,
  );
  expect(reloadDiff(failed)).toEqual({ live: 'last reload failed', want: 'reloaded' });
  expect(reloadDiff({ state: 'blind' })).toEqual({ live: 'unreadable', want: 0 });
});

test.each([
  [{ '/nodes/n3': { 'Sys.Audit': 1 } }, true],
  [{ '/nodes/n3': { 'Sys.Audit': 0 } }, true],
  [{ '/nodes/n3': { 'SDN.Audit': 1 } }, false],
  [{ '/nodes/n2': { 'Sys.Audit': 1 } }, false],
  [null, false],
])('auditsNode(%j) is %s', (answer, held) => {
  expect(auditsNode(answer, 'n3')).toBe(held);
});
