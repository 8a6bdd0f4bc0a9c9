// Unit test of the read of what a removed unit's destroy stops that no stack declares (handlers/linux/removal-stops.ts)
// against a fake host: it reuses the session's stopped-by answer, reads nothing more when the removal stops nothing,
// and counts the commands of a plan's read of a host with removals: one more than before the removed units' marks
// were read with the stops (the read of those marks, which the undeclared stops' read no longer repeats).
import type { CommandResult, Remote } from '../../../../src/linux/ssh';
import { restartOnPath } from '../../../../src/linux/unit-file';
import { readRemovalStops } from '../../../../handlers/linux/removal-stops';
import { readStoppedBy } from '../../../../handlers/linux/stopped-by';
import { readScript } from './fake-systemd-read';

const RUNNING = 'LoadState=loaded\nActiveState=active\nSubState=running\nUnitFileState=enabled\nNeedDaemonReload=no\n';

/** A host where every unit runs, each stops those `stops` names, and those of `marked` carry a record. */
const fakeHost = (stops: Record<string, string>, marked: readonly string[]) => {
  const commands: string[] = [];
  const files = new Map(marked.map((name) => [restartOnPath({ name }), '0']));
  const host = { files, masked: new Set<string>(), show: () => RUNNING, fileOf: () => undefined, fileState: () => '' };
  const remote: Remote = {
    run: async (_command, stdin = ''): Promise<CommandResult> => {
      commands.push(stdin);
      if (stdin.includes('@@cdktf-homelab')) return { code: 0, stdout: readScript(stdin, host), stderr: '' };
      const names = [...stdin.matchAll(/'([^']+)'/g)].map((match) => match[1] as string);
      const block = (name: string) =>
        `Id=${name}\nActiveState=active\nSubState=running\nConsistsOf=${stops[name] ?? ''}\n`;
      return { code: 0, stdout: names.map(block).join('\n'), stderr: '' };
    },
    close: () => undefined,
  };
  const target = { host: 'h', port: 22, user: 'root', readyTimeoutSeconds: 20, keepaliveIntervalSeconds: 15 };
  return { session: { remote, target: { ...target, sudo: false }, host: 'h:22' }, commands };
};
const identity = { name: 'app.service', directory: '/etc/systemd/system' };
const clock = { now: () => 0, sleep: async () => undefined };
const contextOf = (adopt: boolean) => ({
  env: {},
  log: () => undefined,
  clock,
  removing: [{ kind: 'systemd-unit', identity, adopt }],
});

test('a removal that stops nothing says nothing, and reads no more than the fetch read of what it stops', async () => {
  const { session, commands } = fakeHost({}, ['app.service']);
  const context = contextOf(false);
  await readStoppedBy(session, context);
  // The marks of the removed unit, then its `show`.
  expect(commands).toHaveLength(2);
  expect(await readRemovalStops(session, [{ identity, adopt: false }], context, true)).toEqual([undefined]);
  expect(commands).toHaveLength(2);
});

test('a removal that stops a unit no stack declares reads one command more than before, its marks', async () => {
  const { session, commands } = fakeHost({ 'app.service': 'ship.service' }, ['app.service']);
  const context = contextOf(false);
  await readStoppedBy(session, context);
  const said = await readRemovalStops(session, [{ identity, adopt: false }], context, true);
  expect(said).toEqual([expect.stringContaining('its destroy stops ship.service too')]);
  // Marks of app; show of app; show of ship; ship's state and marks. Before: the two shows, then one read of both.
  expect(commands).toHaveLength(4);
});

test('a removal whose destroy leaves its unit says nothing and reads only its marks', async () => {
  const { session, commands } = fakeHost({ 'app.service': 'ship.service' }, []);
  const context = contextOf(false);
  await readStoppedBy(session, context);
  expect(await readRemovalStops(session, [{ identity, adopt: false }], context, true)).toEqual([undefined]);
  expect(commands).toHaveLength(1);
  const adopted = fakeHost({ 'app.service': 'ship.service' }, []);
  const said = await readRemovalStops(adopted.session, [{ identity, adopt: true }], contextOf(true), true);
  expect(said).toEqual([expect.stringContaining('its destroy stops ship.service too')]);
});
