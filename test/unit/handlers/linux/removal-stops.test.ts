// Unit test of the read of what a removed unit's destroy stops that no stack declares (handlers/linux/removal-stops.ts)
// against a fake host: it reuses the session's stopped-by answer and reads nothing more when the removal stops nothing.
import type { CommandResult, Remote } from '../../../../src/linux/ssh';
import { readRemovalStops } from '../../../../handlers/linux/removal-stops';
import { readStoppedBy } from '../../../../handlers/linux/stopped-by';

/** A host where every shown unit runs and stops nothing; each command's stdin kept. */
const fakeHost = () => {
  const commands: string[] = [];
  const remote: Remote = {
    run: async (_command, stdin = ''): Promise<CommandResult> => {
      commands.push(stdin);
      const names = [...stdin.matchAll(/'([^']+)'/g)].map((match) => match[1] as string);
      const block = (name: string) => `Id=${name}\nActiveState=active\nSubState=running\n`;
      return { code: 0, stdout: names.map(block).join('\n'), stderr: '' };
    },
    close: () => undefined,
  };
  const target = { host: 'h', port: 22, user: 'root', readyTimeoutSeconds: 20, keepaliveIntervalSeconds: 15 };
  return { session: { remote, target: { ...target, sudo: false }, host: 'h:22' }, commands };
};
const identity = { name: 'app.service', directory: '/etc/systemd/system' };
const removing = [{ kind: 'systemd-unit', identity }];
const clock = { now: () => 0, sleep: async () => undefined };
const context = { env: {}, log: () => undefined, clock, removing };

test('a removal that stops nothing says nothing, and reads no more than the fetch read of what it stops', async () => {
  const { session, commands } = fakeHost();
  await readStoppedBy(session, removing);
  expect(commands).toHaveLength(1);
  expect(await readRemovalStops(session, [{ identity, adopt: false }], context, true)).toEqual([undefined]);
  expect(commands).toHaveLength(1);
});
