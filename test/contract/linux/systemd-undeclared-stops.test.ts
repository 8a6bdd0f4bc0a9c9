/**
 * A unit the plan removes whose stop stops running units no stack declares (made by hand PartOf=, BindsTo= it, or
 * PartOf= one of those), on real systemd 252. Regression: the plan said only that the unit will be destroyed, and its
 * destroy stopped those with it, one never to start again (`Unit us-app.service not found.`). Now the host's drift
 * warning names them and which cannot start again; nothing where the destroy leaves the unit (never adopted).
 */
import { linuxDomain } from '../../../handlers/linux/domain';
import { invoke, invokeBatch } from '../../support/run-handler';
import {
  appliedMark,
  hostTarget,
  instanceSpec,
  KEY_ENV,
  unitBatch,
  sleeperEntry,
  sleeperService,
  unitSpec,
  useSystemdHost,
} from '../../support/unit-host';

jest.setTimeout(120_000);

const DIR = '/etc/systemd/system';
const { host, unit } = useSystemdHost();
const { apply } = unitBatch(host);

const app = sleeperEntry('us-app.service', '');
// Declared by the stack: its own plan line names the stop, the removal's does not.
const dec = sleeperEntry('us-dec.service', 'PartOf=us-app.service\n');

/** Writes `units` (name → [Unit] lines) by hand, reloads, and starts those of `start`. */
const byHand = async (units: Record<string, string>, start: readonly string[]) => {
  for (const [name, lines] of Object.entries(units))
    expect((await host().exec(`printf '%s' '${sleeperService(lines)}' > ${DIR}/${name}`)).code).toBe(0);
  expect((await host().exec(`systemctl daemon-reload && systemctl start ${start.join(' ')}`)).code).toBe(0);
};

/** The `.summary` of the host's read of `objects` by a plan that removes `removing` (name → kind, identity, adopt). */
const planRemoving = async (objects: Record<string, unknown>, removing: Record<string, unknown>) => {
  const env = { [KEY_ENV]: host().privateKey };
  const target = hostTarget(host());
  const planned = await invokeBatch(linuxDomain(), target, objects as never, env, {
    '.removing': JSON.stringify(removing),
  });
  expect(planned).toMatchObject({ code: 0 });
  return planned.result?.['.summary'] ?? '';
};

const active = async (name: string) => (await host().exec(`systemctl is-active -- ${name}`)).stdout.trim();
const removed = (name: string, adopt = false) => ({
  kind: 'systemd-unit',
  identity: { name, directory: DIR },
  adopt,
});

test('a plan removing a unit names the running units no stack declares that its destroy stops', async () => {
  expect(await apply({ app, dec })).toMatchObject({ code: 0 });
  await byHand(
    {
      'us-ship.service': 'PartOf=us-app.service\n',
      'us-bind.service': 'BindsTo=us-app.service\nAfter=us-app.service\n',
      'us-tail.service': 'PartOf=us-ship.service\n',
      'us-idle.service': 'PartOf=us-app.service\n',
      'us-hand.service': '',
      'us-hship.service': 'PartOf=us-hand.service\n',
    },
    ['us-ship.service', 'us-bind.service', 'us-tail.service', 'us-hand.service', 'us-hship.service'],
  );
  const at = `127.0.0.1:${host().port}`;
  const said = await planRemoving({ dec }, { app: removed('us-app.service'), hand: removed('us-hand.service') });
  // Only the stack's unit: not its own us-dec, nor us-idle (not running), nor what us-hand stops (never adopted).
  expect(said.slice(said.indexOf('the removal'))).toBe(
    'the removal of 1 object does more than its "will be destroyed" says:\n' +
      `- app: unit us-app.service on ${at}, if this plan destroys it: its destroy stops us-bind.service, ` +
      'us-ship.service, us-tail.service (with us-ship.service) too (running, and no stack declares them); ' +
      'us-bind.service cannot start again without it (Unit us-app.service not found): it BindsTo=, Requires= or ' +
      'Requisite= it',
  );
  // Adopted, the hand-made unit is destroyed, and so is its own stop named.
  const adopted = await planRemoving(
    { dec },
    { app: removed('us-app.service'), hand: removed('us-hand.service', true) },
  );
  expect(adopted).toContain(
    `- hand: unit us-hand.service on ${at}, if this plan destroys it: its destroy stops us-hship.service too ` +
      '(running, and no stack declares it)',
  );

  // The destroy does as the plan said: all three stopped, and the one bound to it cannot start again.
  expect(await unit.run('destroy', app.spec)).toMatchObject({ code: 0 });
  const states = ['us-ship', 'us-bind', 'us-tail', 'us-hship'].map(async (name) => [
    name,
    await active(`${name}.service`),
  ]);
  expect(await Promise.all(states)).toEqual([
    ['us-ship', 'inactive'],
    ['us-bind', 'inactive'],
    ['us-tail', 'inactive'],
    ['us-hship', 'active'],
  ]);
  const bind = await host().exec('systemctl start us-bind.service');
  expect(bind.code).not.toBe(0);
  expect(bind.stderr).toContain('Unit us-app.service not found.');
  // Once it is gone, a plan that still removes it says nothing of it.
  expect(await planRemoving({ dec }, { app: removed('us-app.service') })).not.toContain('does more than');
});

test('a plan removing an instance names what its stop stops that no stack declares, not what one does', async () => {
  const template = {
    kind: 'systemd-unit',
    spec: unitSpec('ui@.service', sleeperService(''), { enabled: false, started: false }),
  };
  const instance = { kind: 'systemd-instance', spec: instanceSpec('ui@a.service'), after: ['t'] };
  expect(await apply({ t: template, i: instance })).toMatchObject({ code: 0 });
  const ship = unitSpec('ui-ship.service', sleeperService('Requires=ui@a.service\nAfter=ui@a.service\n'));
  const marked = unitSpec('ui-own.service', sleeperService('PartOf=ui@a.service\n'));
  await byHand(
    { 'ui-ship.service': 'Requires=ui@a.service\nAfter=ui@a.service\n', 'ui-own.service': 'PartOf=ui@a.service\n' },
    ['ui-ship.service', 'ui-own.service'],
  );
  // ui-own carries a stack's record (another stack's apply made it): a stack declares it.
  expect((await host().exec(appliedMark(marked))).code).toBe(0);
  const removing = { i: { kind: 'systemd-instance', identity: { name: 'ui@a.service', directory: DIR } } };
  const said = await planRemoving({ t: template }, removing);
  // Its template stays, so what needs it starts it again: the plan does not say it cannot.
  expect(said.slice(said.indexOf('the removal'))).toBe(
    'the removal of 1 object does more than its "will be destroyed" says:\n' +
      `- i: instance ui@a.service on 127.0.0.1:${host().port}, if this plan destroys it: its destroy stops ` +
      'ui-ship.service too (running, and no stack declares it)',
  );
  const env = { [KEY_ENV]: host().privateKey };
  const target = hostTarget(host());
  const destroyed = await invoke(linuxDomain(), 'systemd-instance', 'destroy', target, removing.i.identity, env);
  expect(destroyed).toMatchObject({ code: 0 });
  expect([await active(ship.name), await active(marked.name)]).toEqual(['inactive', 'inactive']);
  expect((await host().exec(`systemctl start ${ship.name}`)).code).toBe(0);
  expect(await active('ui@a.service')).toBe('active');
});
