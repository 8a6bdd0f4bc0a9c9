// Unit test of the removals' read (handlers/linux/stopped-by.ts) against a fake host: one `systemctl show` a level of
// the chain, none when the stack removes no unit, bounded, and kept for the session. Regression: only the removed
// units were shown, so a unit PartOf= one PartOf= a removed unit was not known to be stopped.
import type { CommandResult, Remote } from '../../../../src/linux/ssh';
import { readStoppedBy } from '../../../../handlers/linux/stopped-by';

/** A host whose running units each list the units their stop stops (`ConsistsOf`, `RequiredBy`), by name. */
const fakeHost = (units: Record<string, { consists?: string[]; required?: string[] }>) => {
  const shows: string[][] = [];
  const remote: Remote = {
    run: async (_command, stdin = ''): Promise<CommandResult> => {
      const names = [...stdin.matchAll(/'([^']+)'/g)].map((match) => match[1] as string);
      shows.push(names);
      const block = (name: string) =>
        `Id=${name}\nActiveState=active\nSubState=running\nRequiredBy=${(units[name]?.required ?? []).join(' ')}\n` +
        `RequisiteOf=\nBoundBy=\nConsistsOf=${(units[name]?.consists ?? []).join(' ')}\nPropagatesStopTo=\n`;
      return { code: 0, stdout: names.map(block).join('\n'), stderr: '' };
    },
    close: () => undefined,
  };
  const target = { host: 'h', port: 22, user: 'root', readyTimeoutSeconds: 20, keepaliveIntervalSeconds: 15 };
  return { session: { remote, target: { ...target, sudo: false }, host: 'h:22' }, shows };
};
const removing = (...names: string[]) =>
  names.map((name) => ({ kind: 'systemd-unit', identity: { name, directory: '/etc/systemd/system' } }));

test('the read runs no command when the stack removes no unit', async () => {
  const { session, shows } = fakeHost({});
  expect(await readStoppedBy(session, [])).toEqual({});
  expect(shows).toEqual([]);
});

test('the read shows each level of the chain once, and knows what the removal stops down it', async () => {
  const { session, shows } = fakeHost({
    'a.service': { consists: ['b.service'] },
    'b.service': { consists: ['c.service'], required: ['d.service'] },
  });
  const { stoppedBy } = await readStoppedBy(session, removing('a.service'));
  expect(shows).toEqual([['a.service'], ['b.service'], ['d.service', 'c.service']]);
  expect(Object.fromEntries(stoppedBy ?? [])).toEqual({
    'b.service': { by: 'a.service', needs: false },
    'c.service': { by: 'a.service', needs: false, with: 'b.service' },
    'd.service': { by: 'a.service', needs: false, with: 'b.service' },
  });
  await readStoppedBy(session, removing('a.service'));
  expect(shows).toHaveLength(3);
});

test('the read ends at a cycle, and after six rounds however deep the chain goes', async () => {
  const cycle = fakeHost({ 'a.service': { consists: ['b.service'] }, 'b.service': { consists: ['a.service'] } });
  await readStoppedBy(cycle.session, removing('a.service'));
  expect(cycle.shows).toEqual([['a.service'], ['b.service']]);
  const names = Array.from({ length: 10 }, (_, level) => `l${level}.service`);
  const deep = fakeHost(
    Object.fromEntries(names.slice(0, -1).map((name, i) => [name, { consists: [names[i + 1] ?? ''] }])),
  );
  const { stoppedBy } = await readStoppedBy(deep.session, removing('l0.service'));
  expect(deep.shows).toEqual(names.slice(0, 6).map((name) => [name]));
  expect([...(stoppedBy?.keys() ?? [])]).toEqual(names.slice(1, 7));
});
