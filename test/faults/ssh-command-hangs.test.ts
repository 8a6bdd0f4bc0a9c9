/**
 * A host that takes a command and never finishes it (issue 16, item 2): a plan's read ran past 40 s.
 * A read now fails at the target's commandTimeoutSeconds naming the host and the budget; a write
 * cut there is "outcome unknown", never sent again, with nothing run after it.
 */
import { linuxDomain } from '../../handlers/linux/domain';
import { helperCommand } from '../../src/linux/root-helper';
import { ConnectionLost, connectSsh, OutcomeUnknown } from '../../src/linux/ssh';
import { parseSshTarget } from '../../src/linux/target';
import { invoke, invokeBatch } from '../support/run-handler';
import { answer, type OnExec, type SshTestServer, startSshTestServer } from '../support/ssh-test-server';
import { unitSpec } from '../support/unit-host';

/** The read script's answer for one absent unit, as systemd 252 prints it. */
const ABSENT =
  'Id=hang.service\nLoadState=not-found\nActiveState=inactive\nSubState=dead\nUnitFileState=\n' +
  'NeedDaemonReload=no\nJob=\nStateChangeTimestamp=\n\n' +
  '@@cdktf-homelab:files\n@@cdktf-homelab:restart-on\n@@cdktf-homelab:unit-files\n@@cdktf-homelab:now\n1800000000\n';

/**
 * Answers `echo ok`, and (when `reads` is true) the read script and the first root helper request (the
 * intents); leaves every other command hanging.
 */
const hangingHost = (reads: boolean): OnExec => {
  let helped = false;
  return (command, channel) => {
    if (command === 'echo ok') return answer(channel, 'ok\n');
    if (reads && command === 'sh -s') return answer(channel, ABSENT);
    if (reads && command === helperCommand(false) && !helped) {
      helped = true;
      return answer(channel, '');
    }
  };
};

let server: SshTestServer | undefined;
afterEach(() => server?.close());

const secondsSince = (start: number) => (Date.now() - start) / 1000;

test("a plan's read that never finishes fails at commandTimeoutSeconds, naming the host and the budget", async () => {
  server = await startSshTestServer(hangingHost(false));
  const started = Date.now();
  const batch = await invokeBatch(
    linuxDomain(),
    server.target({ commandTimeoutSeconds: 1 }),
    { u: { kind: 'systemd-unit', spec: unitSpec('hang.service', '[Service]\nExecStart=/bin/true\n') } },
    server.env,
  );
  expect(secondsSince(started)).toBeLessThan(3);
  expect(batch.code).toBe(1);
  expect(batch.stderr).toMatch(
    new RegExp(
      '^batch read: SSH read timed out: `sh -s` did not finish within 1 s \\(commandTimeoutSeconds\\) ' +
        'and was stopped; ' +
        `.*raise commandTimeoutSeconds; Host: root@127\\.0\\.0\\.1:${server.port}$`,
    ),
  );
});

test('a read cut at its deadline leaves the connection usable for the next command', async () => {
  server = await startSshTestServer(hangingHost(false));
  const remote = await connectSsh(parseSshTarget(server.target({ commandTimeoutSeconds: 1 })), server.env);
  try {
    const failure = await remote.run('sleep forever', undefined, 'reads').catch((error: unknown) => error);
    expect(failure).not.toBeInstanceOf(ConnectionLost);
    expect(String(failure)).toMatch(/SSH read timed out: `sleep forever` did not finish within 1 s/);
    expect((await remote.run('echo ok', undefined, 'reads')).stdout).toBe('ok\n');
  } finally {
    remote.close();
  }
});

test('a write cut at its deadline is "outcome unknown", is not sent again, and nothing runs after it', async () => {
  server = await startSshTestServer(hangingHost(false));
  const remote = await connectSsh(parseSshTarget(server.target({ commandTimeoutSeconds: 1 })), server.env);
  try {
    const started = Date.now();
    const failure = await remote.run('systemctl daemon-reload').catch((error: unknown) => error);
    expect(secondsSince(started)).toBeLessThan(3);
    expect(failure).toBeInstanceOf(OutcomeUnknown);
    expect((failure as OutcomeUnknown).oneLine()).toMatch(
      new RegExp(
        '^SSH write cut off: outcome unknown: `systemctl daemon-reload` did not finish within 1 s ' +
          '\\(commandTimeoutSeconds\\) and was cut off; it was not sent again, .*' +
          `; Host: root@127\\.0\\.0\\.1:${server.port}$`,
      ),
    );
    const next = await remote.run('echo ok', undefined, 'reads').catch((error: unknown) => error);
    expect(next).toBeInstanceOf(ConnectionLost);
    expect(server.commands).toEqual(['systemctl daemon-reload']);
  } finally {
    remote.close();
  }
});

test('an apply whose unit-file write never finishes is "outcome unknown" for the host, with no undo', async () => {
  server = await startSshTestServer(hangingHost(true));
  const spec = unitSpec('hang.service', '[Service]\nExecStart=/bin/true\n', { enabled: false, started: false });
  const applied = await invoke(
    linuxDomain(),
    'systemd-unit',
    'apply',
    server.target({ commandTimeoutSeconds: 1 }),
    spec,
    server.env,
  );
  expect(applied.code).toBe(1);
  expect(applied.stderr).toMatch(
    new RegExp(
      `^127\\.0\\.0\\.1:${server.port}: wrote the intents of 1 object .*\\n` +
        `systemd-unit apply: SSH connection to 127\\.0\\.0\\.1:${server.port} lost during apply: outcome unknown: ` +
        "`sh -c '#!/bin/sh # cdktf-homelab-root: .*` did not finish within 1 s \\(commandTimeoutSeconds\\) " +
        'and was cut off; ' +
        'it was not sent again, .*the unit may be half-applied: the next apply converges it$',
    ),
  );
  expect(applied.stderr).not.toMatch(/was not applied|undo/);
  // The read, the intents, then the write: nothing after it (no undo, no second send).
  expect(server.commands).toHaveLength(3);
  expect(server.commands.slice(0, 2)).toEqual(['sh -s', helperCommand(false)]);
});
