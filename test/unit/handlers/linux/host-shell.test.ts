import type { Clock } from '../../../../src/core/clock';
import { helperCommand } from '../../../../src/linux/root-helper';
import type { CommandResult, Remote } from '../../../../src/linux/ssh';
import { CONFIRM_MS, HostShell, MAX_POLL_MS, POLL_MS } from '../../../../handlers/linux/host-shell';

/**
 * A clock that only moves when waited on, and a host whose units each go through their states one
 * per `show` that names them (`active running <job> <type>`; the last state stays); list-jobs
 * answers `jobs`.
 */
const fakeHost = (units: Record<string, string[]>, jobs = '') => {
  let now = 0;
  const clock: Clock = { now: () => now, sleep: async (ms) => void (now += ms) };
  const commands: string[] = [];
  const shows: string[][] = [];
  const remote: Remote = {
    run: async (command, stdin = ''): Promise<CommandResult> => {
      // A root helper request (root-helper.ts) is logged by its step.
      const step = command === helperCommand(false) ? (stdin.split('\n')[1] ?? '') : '';
      commands.push(step !== '' ? `root: ${step}` : `${command} ${stdin}`.trim());
      if (step.startsWith('journal ')) return { code: 0, stdout: 'line one\nline two\n', stderr: '' };
      if (step.startsWith('list-jobs')) return { code: 0, stdout: jobs, stderr: '' };
      if (!stdin.startsWith('systemctl show')) return { code: 0, stdout: '', stderr: '' };
      const names = [...stdin.matchAll(/'([^']+)'/g)].map((match) => match[1] as string);
      shows.push(names);
      const block = (name: string) => {
        const states = units[name] ?? [];
        const [active = 'inactive', sub = 'dead', job = '-', type = 'notify'] =
          (states.length > 1 ? states.shift() : states[0])?.split(' ') ?? [];
        const state = `LoadState=loaded\nActiveState=${active}\nSubState=${sub}\n`;
        return `${state}Job=${job === '-' ? '' : job}\nType=${type}\n`;
      };
      return { code: 0, stdout: names.map(block).join('\n'), stderr: '' };
    },
    close: () => undefined,
  };
  const logged: string[] = [];
  const session = {
    remote,
    target: { host: 'h', port: 22, user: 'root', readyTimeoutSeconds: 20, keepaliveIntervalSeconds: 15, sudo: false },
    host: 'h:22',
  };
  const shell = new HostShell(session, clock, (line) => logged.push(line));
  return { shell, commands, shows, logged, elapsed: () => now };
};

describe('HostShell.settle, the bounded wait after start, restart or stop', () => {
  test('a unit never ready fails at the deadline with its state and journal, at most MAX_POLL_MS late', async () => {
    const host = fakeHost({ 'x.service': ['activating start 75'] });
    await expect(host.shell.settle('x.service', 'active', 3)).rejects.toThrow(
      'x.service did not become active: it is still activating/start after 3 s (startTimeoutSeconds); ' +
        'its last 2 journal lines are above, the last: line two',
    );
    expect(host.elapsed()).toBeGreaterThanOrEqual(3000);
    expect(host.elapsed()).toBeLessThan(3000 + MAX_POLL_MS);
    expect(host.logged).toEqual(['x.service on h:22: journal: line one', 'x.service on h:22: journal: line two']);
  });

  test('a start that reaches active returns at once, without a fixed wait', async () => {
    const host = fakeHost({ 'x.service': ['activating start 75', 'active running -'] });
    await host.shell.settle('x.service', 'active', 90);
    expect(host.elapsed()).toBe(POLL_MS);
  });

  test('a Type=simple unit is confirmed by a second look, which catches one that exits at once', async () => {
    const exits = fakeHost({ 'x.service': ['active running - simple', 'failed failed - simple'] });
    await expect(exits.shell.settle('x.service', 'active', 90)).rejects.toThrow(/it is failed\/failed/);
    expect(exits.elapsed()).toBe(CONFIRM_MS);
    const stays = fakeHost({ 'x.service': ['active running - simple'] });
    await stays.shell.settle('x.service', 'active', 90);
    expect(stays.elapsed()).toBe(CONFIRM_MS);
  });

  test('a stop waits while the job runs and settles on inactive', async () => {
    const host = fakeHost({
      'x.service': ['deactivating stop-sigterm 81', 'deactivating stop-sigterm 81', 'inactive dead -'],
    });
    await host.shell.settle('x.service', 'inactive', 90);
    expect(host.elapsed()).toBe(POLL_MS + 2 * POLL_MS); // the second pause twice the first
  });

  test('a job waiting with nothing ahead is looked at less and less often; its deadline lists the queue', async () => {
    const host = fakeHost({ 'x.service': ['active running 124'] }, '124 x.service stop waiting\n');
    await expect(host.shell.settle('x.service', 'inactive', 90)).rejects.toThrow(
      'x.service did not become inactive: it is still active/running after 90 s (startTimeoutSeconds); ' +
        'its stop job 124 is still waiting, for no other job; systemd holds 1 job: 124 x.service stop waiting; ',
    );
    // 150, 300, 600, 1200, then every MAX_POLL_MS: about 50 looks in 90 s, not 600.
    expect(host.shows.length).toBeLessThanOrEqual(4 + Math.ceil(90_000 / MAX_POLL_MS) + 1);
    expect(host.commands.filter((c) => /daemon-reload|root: reload|cancel|ignore-dependencies/.test(c))).toEqual([]);
  });

  test('a quick stop is still seen at once', async () => {
    const host = fakeHost({ 'x.service': ['active running 124', 'inactive dead -'] });
    await host.shell.settle('x.service', 'inactive', 90);
    expect(host.elapsed()).toBe(POLL_MS);
  });

  test('a job waiting its turn behind another is left alone, and the deadline names what it waits for', async () => {
    const host = fakeHost(
      { 'x.service': ['inactive dead 124 simple'] },
      '124 x.service start waiting\n└─      waiting for job 75 (db.service/start) -     -\n',
    );
    await expect(host.shell.settle('x.service', 'active', 25)).rejects.toThrow(
      'x.service did not become active: it is still inactive/dead after 25 s (startTimeoutSeconds); ' +
        'its start job 124 is still waiting for job 75 (db.service/start); ',
    );
    expect(host.commands.filter((c) => /daemon-reload|root: reload/.test(c))).toEqual([]);
  });
});

describe('HostShell.settleAll, the waits of a batch together', () => {
  test('every unit is polled in one show a round, each leaves the round it settles, a failure is its own', async () => {
    const host = fakeHost({
      'a.service': ['activating start 1', 'active running -'],
      'b.service': ['activating start 2', 'activating start 2', 'activating start 2', 'active running -'],
      'c.service': ['activating start 3', 'failed failed -'],
    });
    const log = (line: string) => host.logged.push(line);
    const outcomes = await host.shell.settleAll(
      ['a.service', 'b.service', 'c.service'].map((name) => ({ name, want: 'active' as const, seconds: 90, log })),
    );
    expect(host.shows).toEqual([
      ['a.service', 'b.service', 'c.service'],
      ['a.service', 'b.service', 'c.service'],
      ['b.service'],
      ['b.service'],
    ]);
    expect(outcomes.get('a.service')).toBeUndefined();
    expect(outcomes.get('b.service')).toBeUndefined();
    expect(outcomes.get('c.service')?.message).toMatch(/^c.service did not become active: it is failed\/failed; /);
    expect(host.elapsed()).toBe(3 * POLL_MS);
  });

  test('a stop waited for tells each unit the state it settled in, so the caller reads none after', async () => {
    const host = fakeHost({
      'a.service': ['deactivating stop 1', 'inactive dead -'],
      'b.service': ['deactivating stop 2', 'failed failed -'],
      'c.service': ['deactivating stop 3'],
    });
    const told: string[] = [];
    const waits = ['a.service', 'b.service', 'c.service'].map((name) => ({
      name,
      want: 'inactive' as const,
      seconds: 1,
      log: () => {},
      settled: ({ activeState }: { activeState: string }) => void told.push(`${name} ${activeState}`),
    }));
    const outcomes = await host.shell.settleAll(waits);
    expect(told).toEqual(['a.service inactive', 'b.service failed']);
    expect(outcomes.get('c.service')?.message).toMatch(/^c.service did not become inactive/);
  });

  test('a batch, one process asking for all its units at once, keeps looking every POLL_MS', async () => {
    const host = fakeHost({ 'x.service': ['inactive dead 124 simple'] }, '124 x.service start waiting\n');
    const outcomes = await host.shell.settleAll([{ name: 'x.service', want: 'active', seconds: 3, log: () => {} }]);
    expect(outcomes.get('x.service')?.message).toMatch(/its start job 124 is still waiting, for no other job/);
    expect(host.shows.length).toBe(Math.ceil(3000 / POLL_MS) + 1);
  });

  test('each unit waits under its own deadline, and its journal goes to its own log', async () => {
    const host = fakeHost({ 'quick.service': ['activating start 1'], 'slow.service': ['activating start 2'] });
    const waits = [
      { name: 'quick.service', want: 'active' as const, seconds: 1, log: (l: string) => host.logged.push(`q: ${l}`) },
      { name: 'slow.service', want: 'active' as const, seconds: 3, log: (l: string) => host.logged.push(`s: ${l}`) },
    ];
    const outcomes = await host.shell.settleAll(waits);
    expect(outcomes.get('quick.service')?.message).toMatch(/after 1 s \(startTimeoutSeconds\)/);
    expect(outcomes.get('slow.service')?.message).toMatch(/after 3 s \(startTimeoutSeconds\)/);
    expect(host.logged).toEqual([
      'q: journal: line one',
      'q: journal: line two',
      's: journal: line one',
      's: journal: line two',
    ]);
  });
});
