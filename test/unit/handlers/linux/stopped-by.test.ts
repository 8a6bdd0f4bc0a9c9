// Unit test of the removals' read (handlers/linux/stopped-by.ts) against a fake host: the removed units' marks once,
// then one `systemctl show` a level of the chain from those whose destroy acts, none when the stack removes no unit,
// bounded, and kept for the session. Regressions: only the removed units were shown, so a unit PartOf= one PartOf= a
// removed unit was not known to be stopped; and a removal whose destroy leaves its unit was said to stop units.
import type { CommandResult, Remote } from '../../../../src/linux/ssh';
import { restartOnPath } from '../../../../src/linux/unit-file';
import { recordText } from '../../../../src/linux/unit-intent';
import { readStoppedBy } from '../../../../handlers/linux/stopped-by';
import { operands, readScript } from './fake-systemd-read';

const RUNNING = 'LoadState=loaded\nActiveState=active\nSubState=running\nUnitFileState=enabled\nNeedDaemonReload=no\n';

/**
 * A host whose running units each list the units their stop stops (`ConsistsOf`, `RequiredBy`), by name, and whose
 * units in `records` carry that record text. `shows`: the names each `systemctl show` of stops asked for; `reads`: the
 * names each read of marks asked for.
 */
const fakeHost = (
  units: Record<string, { consists?: string[]; required?: string[] }>,
  records: Record<string, string> = Object.fromEntries(Object.keys(units).map((name) => [name, '0'])),
) => {
  const shows: string[][] = [];
  const reads: string[][] = [];
  const files = new Map(Object.entries(records).map(([name, text]) => [restartOnPath({ name }), text]));
  const host = { files, masked: new Set<string>(), show: () => RUNNING, fileOf: () => undefined, fileState: () => '' };
  const remote: Remote = {
    run: async (_command, stdin = ''): Promise<CommandResult> => {
      if (stdin.includes('@@cdktf-homelab')) {
        reads.push(operands(/systemctl show -p \S+ -- (.*)\n/.exec(stdin)?.[1] ?? ''));
        return { code: 0, stdout: readScript(stdin, host), stderr: '' };
      }
      const names = operands(stdin);
      shows.push(names);
      const block = (name: string) =>
        `Id=${name}\nActiveState=active\nSubState=running\nRequiredBy=${(units[name]?.required ?? []).join(' ')}\n` +
        `RequisiteOf=\nBoundBy=\nConsistsOf=${(units[name]?.consists ?? []).join(' ')}\nPropagatesStopTo=\n`;
      return { code: 0, stdout: names.map(block).join('\n'), stderr: '' };
    },
    close: () => undefined,
  };
  const target = { host: 'h', port: 22, user: 'root', readyTimeoutSeconds: 20, keepaliveIntervalSeconds: 15 };
  return { session: { remote, target: { ...target, sudo: false }, host: 'h:22' }, shows, reads };
};
const removing = (names: string[], adopt = false) =>
  names.map((name) => ({ kind: 'systemd-unit', identity: { name, directory: '/etc/systemd/system' }, adopt }));
const of = (...names: string[]) => ({ removing: removing(names) });

test('the read runs no command when the stack removes no unit', async () => {
  const { session, shows, reads } = fakeHost({});
  expect(await readStoppedBy(session, { removing: [] })).toEqual({});
  expect([shows, reads]).toEqual([[], []]);
});

test('the read shows each level of the chain once, and knows what the removal stops down it', async () => {
  const { session, shows, reads } = fakeHost({
    'a.service': { consists: ['b.service'] },
    'b.service': { consists: ['c.service'], required: ['d.service'] },
  });
  const { stoppedBy } = await readStoppedBy(session, of('a.service'));
  expect(reads).toEqual([['a.service']]);
  expect(shows).toEqual([['a.service'], ['b.service'], ['d.service', 'c.service']]);
  expect(Object.fromEntries(stoppedBy ?? [])).toEqual({
    'b.service': { by: 'a.service', needs: false },
    'c.service': { by: 'a.service', needs: false, with: 'b.service' },
    'd.service': { by: 'a.service', needs: false, with: 'b.service' },
  });
  await readStoppedBy(session, of('a.service'));
  expect(shows).toHaveLength(3);
  expect(reads).toHaveLength(1);
});

test('the read ends at a cycle, and after six rounds however deep the chain goes', async () => {
  const cycle = fakeHost({ 'a.service': { consists: ['b.service'] }, 'b.service': { consists: ['a.service'] } });
  await readStoppedBy(cycle.session, of('a.service'));
  expect(cycle.shows).toEqual([['a.service'], ['b.service']]);
  const names = Array.from({ length: 10 }, (_, level) => `l${level}.service`);
  const deep = fakeHost(
    Object.fromEntries(names.slice(0, -1).map((name, i) => [name, { consists: [names[i + 1] ?? ''] }])),
  );
  const { stoppedBy } = await readStoppedBy(deep.session, of('l0.service'));
  expect(deep.shows).toEqual(names.slice(0, 6).map((name) => [name]));
  expect([...(stoppedBy?.keys() ?? [])]).toEqual(names.slice(1, 7));
});

test.each([
  ['made by hand and not adopted', {}, false, {}],
  ["another stack's, adopted", { 'a.service': recordText('0', undefined, 'blue') }, true, { stack: 'green' }],
  ["another stack's, read by no stack", { 'a.service': recordText('0', undefined, 'blue') }, false, {}],
])('a removal whose destroy leaves its unit (%s) stops nothing, read in one command', async (_, records, adopt, as) => {
  const { session, shows, reads } = fakeHost({ 'a.service': { consists: ['b.service'] } }, records);
  const answer = await readStoppedBy(session, { removing: removing(['a.service'], adopt), ...as });
  expect(answer).toEqual({ stoppedBy: new Map(), acting: new Set() });
  expect([reads, shows]).toEqual([[['a.service']], []]);
});

test.each([
  ['made by hand and adopted', {}, true, {}],
  ["this stack's", { 'a.service': recordText('0', undefined, 'green') }, false, { stack: 'green' }],
  ["an earlier version's, naming no stack", { 'a.service': '0' }, false, { stack: 'green' }],
])('a removal whose destroy acts (%s) stops what its stop stops', async (_, records, adopt, as) => {
  const { session, shows } = fakeHost({ 'a.service': { consists: ['b.service'] } }, records);
  const answer = await readStoppedBy(session, { removing: removing(['a.service'], adopt), ...as });
  expect(answer.acting).toEqual(new Set(['a.service']));
  expect(Object.fromEntries(answer.stoppedBy ?? [])).toEqual({ 'b.service': { by: 'a.service', needs: false } });
  expect(shows).toEqual([['a.service'], ['b.service']]);
});

test('only the removals whose destroy acts are shown, and the answer is kept per stack and adoption', async () => {
  const { session, shows, reads } = fakeHost(
    { 'a.service': { consists: ['c.service'] }, 'b.service': { consists: ['d.service'] } },
    { 'a.service': '0' },
  );
  const { stoppedBy } = await readStoppedBy(session, of('a.service', 'b.service'));
  expect([...(stoppedBy?.keys() ?? [])]).toEqual(['c.service']);
  expect(shows[0]).toEqual(['a.service']);
  await readStoppedBy(session, { removing: removing(['a.service', 'b.service'], true) });
  expect(reads).toHaveLength(2);
});
