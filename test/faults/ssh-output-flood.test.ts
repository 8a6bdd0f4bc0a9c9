/**
 * A host that answers a command with 512 MiB (issue 16, item 2): the handler grew to 1.25 GB and
 * Node crashed with a stack trace. Output past MAX_OUTPUT_BYTES now stops the command: a read fails
 * naming the cap, a write is "outcome unknown", and the server is made to stop soon after the cap.
 */
import { linuxDomain } from '../../handlers/linux/domain';
import { ConnectionLost, connectSsh, OutcomeUnknown } from '../../src/linux/ssh';
import { MAX_OUTPUT_BYTES } from '../../src/linux/ssh-outcome';
import { parseSshTarget } from '../../src/linux/target';
import { invokeBatch } from '../support/run-handler';
import { flood, type SshTestServer, startSshTestServer } from '../support/ssh-test-server';
import { unitSpec } from '../support/unit-host';

const FLOOD_BYTES = 512 * 1024 * 1024;
const MiB = 1024 * 1024;

let server: SshTestServer | undefined;
let sent: Array<Promise<number>> = [];
afterEach(async () => {
  await server?.close();
  sent = [];
});

const floodingHost = async () => {
  server = await startSshTestServer((_command, channel) => void sent.push(flood(channel, FLOOD_BYTES)));
  return server;
};

test("a plan's read answered with 512 MiB fails naming the cap, and the host is stopped soon after it", async () => {
  const host = await floodingHost();
  const rssBefore = process.memoryUsage().rss;
  const batch = await invokeBatch(
    linuxDomain(),
    host.target(),
    { u: { kind: 'systemd-unit', spec: unitSpec('flood.service', '[Service]\nExecStart=/bin/true\n') } },
    host.env,
  );
  expect(batch.code).toBe(1);
  expect(batch.stderr).toMatch(
    new RegExp(
      "^batch read: SSH read output too large: `sh -s` printed more than 4 MiB \\(the cap on one command's output\\) " +
        `and was stopped; .*Host: root@127\\.0\\.0\\.1:${host.port}$`,
    ),
  );
  // Past the cap only what was in flight when the channel closed (measured: 8 MiB sent in all).
  expect(await sent[0]).toBeLessThan(MAX_OUTPUT_BYTES + 16 * MiB);
  expect(process.memoryUsage().rss - rssBefore).toBeLessThan(128 * MiB);
});

test('a write answered with 512 MiB is "outcome unknown" and closes the connection behind it', async () => {
  const host = await floodingHost();
  const remote = await connectSsh(parseSshTarget(host.target()), host.env);
  try {
    const failure = await remote.run('systemctl daemon-reload').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OutcomeUnknown);
    expect(String(failure)).toMatch(
      /^HandlerError: SSH write cut off: outcome unknown: `systemctl daemon-reload` printed more than 4 MiB .* cut off/,
    );
    expect(await sent[0]).toBeLessThan(MAX_OUTPUT_BYTES + 16 * MiB);
    expect(await remote.run('true', undefined, 'reads').catch((error: unknown) => error)).toBeInstanceOf(
      ConnectionLost,
    );
  } finally {
    remote.close();
  }
});
