import {
  type FollowAction,
  type FollowEvent,
  isRetryable,
  isTaskError,
  maskSecrets,
  nextStep,
  startFollow,
} from '../../../../src/pve/task-follow';

const UPID = 'UPID:n2:0001A2B3:0ABCDEF0:66E4A1B2:srvreload:networking:root@pam!homelab:';
const STATUS_PATH = `nodes/n2/tasks/${UPID}/status`;
const running = { kind: 'status', data: { upid: UPID, status: 'running' } } as const;
const stopped = (exitstatus?: string): FollowEvent => ({
  kind: 'status',
  data: { upid: UPID, status: 'stopped', exitstatus },
});
const cut: FollowEvent = { kind: 'poll-error', message: 'socket hang up' };
const log = (lines: string[]): FollowEvent => ({ kind: 'log', data: lines.map((t, i) => ({ n: i + 1, t })) });

/** Feeds events at the given clock readings (ms after the start) and returns every action. */
const follow = (events: Array<[FollowEvent, number]>, budgetMs = 30_000): FollowAction[] => {
  let step = startFollow({ node: 'n2', upid: UPID, startedAtMs: 1_000_000, budgetMs });
  const actions = [step.action];
  for (const [event, at] of events) {
    step = nextStep(step.state, event, 1_000_000 + at);
    actions.push(step.action);
  }
  return actions;
};
const last = (actions: FollowAction[]) => actions[actions.length - 1]!;

describe('following a reload task', () => {
  test('the first poll goes out at once, with the UPID raw in the path and a bounded call', () => {
    expect(follow([])).toEqual([{ kind: 'poll', path: STATUS_PATH, afterMs: 0, timeoutMs: 5000 }]);
  });

  test('a poll never outlives the budget', () => {
    expect(follow([[running, 27_500]])[1]).toMatchObject({ kind: 'poll', afterMs: 1000, timeoutMs: 1500 });
  });

  test('running readings poll once a second; OK is done with the elapsed time', () => {
    const actions = follow([
      [running, 30],
      [running, 1040],
      [stopped('OK'), 1420],
    ]);
    expect(actions[1]).toEqual({ kind: 'poll', path: STATUS_PATH, afterMs: 1000, timeoutMs: 5000 });
    expect(last(actions)).toEqual({ kind: 'done', message: 'n2: OK in 1.4 s', elapsedMs: 1420 });
  });

  test('WARNINGS fetches the log, then is done with the warning lines', () => {
    const actions = follow([
      [stopped('WARNINGS: 1'), 900],
      [log(['ifreload -a', 'WARN: vmbr9: unknown bridge', 'TASK WARNINGS: 1']), 950],
    ]);
    expect(actions[1]).toEqual({
      kind: 'fetch-log',
      path: `nodes/n2/tasks/${UPID}/log`,
      query: { start: 0, limit: 1000 },
    });
    expect(last(actions)).toEqual({
      kind: 'done',
      message: 'n2: WARNINGS: 1 in 0.9 s',
      elapsedMs: 900,
      warnings: ['WARN: vmbr9: unknown bridge'],
    });
  });

  test('any other exit status fails with the last 20 log lines', () => {
    const lines = Array.from({ length: 25 }, (_, i) => `line ${i + 1}`);
    const action = last(
      follow([
        [stopped('command ifreload -a failed: exit code 1'), 2000],
        [log(lines), 2100],
      ]),
    );
    expect(action).toMatchObject({
      kind: 'failed',
      exitstatus: 'command ifreload -a failed: exit code 1',
      message: `reload failed on n2: command ifreload -a failed: exit code 1 (${UPID})`,
    });
    expect(action.kind === 'failed' && action.logTail).toEqual(lines.slice(5));
  });

  // Issue 16 item 15: the final error line carried the exit status, passphrase included.
  test('a failure whose exit status echoes a passphrase with spaces carries it masked to the end', () => {
    const exitstatus = 'wlp91s0: wpa-psk correct horse battery staple: rejected';
    const action = last(
      follow([
        [stopped(exitstatus), 2000],
        [log(['ifreload -a', `TASK ERROR: ${exitstatus}`]), 2100],
      ]),
    );
    expect(action).toEqual({
      kind: 'failed',
      exitstatus: 'wlp91s0: wpa-psk <redacted>',
      message: `reload failed on n2: wlp91s0: wpa-psk <redacted> (${UPID})`,
      logTail: ['ifreload -a', 'TASK ERROR: wlp91s0: wpa-psk <redacted>'],
    });
  });

  test('a failure whose log cannot be read still fails, saying so', () => {
    const action = last(
      follow([
        [stopped('unexpected status'), 500],
        [{ kind: 'log-error', message: 'socket hang up' }, 600],
      ]),
    );
    expect(action).toMatchObject({
      kind: 'failed',
      logTail: [],
      message: expect.stringMatching(/log could not be read \(socket hang up\)$/),
    });
  });

  test('a cut poll is retried within the budget and a later reading decides', () => {
    const actions = follow([
      [cut, 10],
      [cut, 1010],
      [stopped('OK'), 2010],
    ]);
    expect(actions.slice(1, 3).map((a) => a.kind)).toEqual(['poll', 'poll']);
    expect(last(actions)).toMatchObject({ kind: 'done', message: 'n2: OK in 2.0 s' });
  });

  test.each<[string, Array<[FollowEvent, number]>, string]>([
    [
      'no reading before the budget ends',
      [
        [cut, 0],
        [cut, 1000],
        [cut, 2000],
        [cut, 3000],
      ],
      'no status reading in 3.0 s (last error: socket hang up)',
    ],
    [
      'still running at the ceiling',
      [
        [running, 0],
        [running, 1000],
        [running, 2000],
        [running, 3000],
      ],
      'still running after 3.0 s',
    ],
    [
      'running, then cut until the ceiling',
      [
        [running, 0],
        [cut, 1000],
        [cut, 2000],
        [cut, 3000],
      ],
      'running when last read, then no reading in 3.0 s (last error: socket hang up)',
    ],
    [
      'a poll refused with 403',
      [[{ kind: 'poll-error', status: 403, message: 'Permission check failed (/nodes/n2, Sys.Audit)' }, 0]],
      'the poll was refused (403 Permission check failed (/nodes/n2, Sys.Audit))',
    ],
    ['a task that stopped with no exit status', [[stopped(undefined), 500]], 'the task stopped without an exit status'],
  ])('the outcome is unknown, never failed or OK, after %s', (_, events, why) => {
    const actions = follow(events, 3000);
    expect(last(actions)).toEqual({
      kind: 'unknown',
      message: `outcome unknown: check the task on n2 (${UPID}): ${why}`,
    });
    expect(actions.slice(0, -1).every((a) => a.kind === 'poll')).toBe(true);
  });

  test('the last poll is sent on the ceiling, never past it, and gets one interval to answer', () => {
    // Regression: it got 1 ms, always failed, and "still running at the ceiling" read as "no reading".
    const actions = follow([[running, 2500]], 3000);
    expect(actions[1]).toMatchObject({ kind: 'poll', afterMs: 500, timeoutMs: 1000 });
  });

  test('a status answer about another task is not a reading', () => {
    const other = {
      kind: 'status',
      data: { upid: 'UPID:n2:00000001:00000001:00000001:x:y:z:', status: 'stopped', exitstatus: 'OK' },
    } as const;
    expect(follow([[other, 10]])[1]).toMatchObject({ kind: 'poll' });
  });

  test.each([
    ['not a UPID', 'garbage', 'the reload answered something that is not a task id'],
    ['a UPID of another node', UPID.replace(':n2:', ':n3:'), 'the task id names node n3'],
  ])('starting from %s is unknown at once', (_, upid, why) => {
    const { action } = startFollow({ node: 'n2', upid, startedAtMs: 0, budgetMs: 30_000 });
    expect(action).toEqual({ kind: 'unknown', message: `outcome unknown: check the task on n2 (${upid}): ${why}` });
  });
});

describe('task-follow rules', () => {
  test.each<[number | undefined, boolean]>([
    [undefined, true],
    [500, true],
    [595, true],
    [400, false],
    [401, false],
    [403, false],
  ])('a poll error with status %s is retryable: %s', (status, expected) => expect(isRetryable(status)).toBe(expected));

  test.each<[string, boolean]>([
    ['OK', false],
    ['WARNINGS: 2', false],
    ['WARNINGS: x', true],
    ['unexpected status', true],
    ['some die text', true],
  ])('exit status "%s" is an error: %s', (exitstatus, expected) => expect(isTaskError(exitstatus)).toBe(expected));

  test.each([
    ['error: wlan0: wpa-psk hunter22 rejected', 'error: wlan0: wpa-psk <redacted>'],
    // Issue 16 item 15: only the first word of a passphrase with spaces was hidden.
    ['wpa-psk correct horse battery staple', 'wpa-psk <redacted>'],
    ['wpa-passphrase: two words', 'wpa-passphrase: <redacted>'],
    ['password=s3cret', 'password=<redacted>'],
    ['nothing to hide', 'nothing to hide'],
  ])('log line "%s" is printed as "%s"', (line, shown) => expect(maskSecrets(line)).toBe(shown));
});
