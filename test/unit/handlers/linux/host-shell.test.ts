import type { Clock } from '../../../../src/core/clock';
import type { CommandResult, Remote } from '../../../../src/linux/ssh';
import { CONFIRM_MS, HostShell, POLL_MS } from '../../../../handlers/linux/host-shell';

/** A clock that only moves when waited on, and a host whose unit goes through `states` one per `show`. */
const fakeHost = (states: string[]) => {
  let now = 0;
  const clock: Clock = { now: () => now, sleep: async (ms) => void (now += ms) };
  const commands: string[] = [];
  const remote: Remote = {
    run: async (command): Promise<CommandResult> => {
      commands.push(command);
      if (command.startsWith('journalctl')) return { code: 0, stdout: 'line one\nline two\n', stderr: '' };
      const [active = 'inactive', sub = 'dead', job = '', type = 'notify'] =
        (states.length > 1 ? states.shift() : states[0])?.split(' ') ?? [];
      return {
        code: 0,
        stdout:
          `LoadState=loaded\nActiveState=${active}\nSubState=${sub}\n` +
          `Job=${job === '-' ? '' : job}\nType=${type}\n`,
        stderr: '',
      };
    },
    close: () => undefined,
  };
  const logged: string[] = [];
  const session = {
    remote,
    target: { host: 'h', port: 22, user: 'root', readyTimeoutSeconds: 20, keepaliveIntervalSeconds: 15, sudo: false },
    host: 'h:22',
  };
  return { shell: new HostShell(session, clock, (line) => logged.push(line)), commands, logged, elapsed: () => now };
};

describe('HostShell.settle, the bounded wait after start, restart or stop', () => {
  test('a unit never ready fails at the deadline with its state and journal, polling every POLL_MS', async () => {
    const host = fakeHost(['activating start 75']);
    await expect(host.shell.settle('x.service', 'active', 3)).rejects.toThrow(
      'x.service did not become active: it is still activating/start after 3 s (startTimeoutSeconds); ' +
        'its last 2 journal lines are above, the last: line two',
    );
    expect(host.elapsed()).toBe(3000 + ((POLL_MS - (3000 % POLL_MS)) % POLL_MS));
    expect(host.logged).toEqual(['x.service on h:22: journal: line one', 'x.service on h:22: journal: line two']);
  });

  test('a start that reaches active returns at once, without a fixed wait', async () => {
    const host = fakeHost(['activating start 75', 'active running -']);
    await host.shell.settle('x.service', 'active', 90);
    expect(host.elapsed()).toBe(POLL_MS);
  });

  test('a Type=simple unit is confirmed by a second look, which catches one that exits at once', async () => {
    const exits = fakeHost(['active running - simple', 'failed failed - simple']);
    await expect(exits.shell.settle('x.service', 'active', 90)).rejects.toThrow(/it is failed\/failed/);
    expect(exits.elapsed()).toBe(CONFIRM_MS);
    const stays = fakeHost(['active running - simple']);
    await stays.shell.settle('x.service', 'active', 90);
    expect(stays.elapsed()).toBe(CONFIRM_MS);
  });

  test('a stop waits while the job runs and settles on inactive', async () => {
    const host = fakeHost(['deactivating stop-sigterm 81', 'deactivating stop-sigterm 81', 'inactive dead -']);
    await host.shell.settle('x.service', 'inactive', 90);
    expect(host.elapsed()).toBe(2 * POLL_MS);
  });
});
