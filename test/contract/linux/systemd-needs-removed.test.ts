/**
 * A unit declared running and unchanged that BindsTo=, Requires= or PartOf= a unit the same apply removes, on real
 * systemd 252. Regression: the plan said each would start again (dee31fe's `startsAgain`), and the apply's start of
 * one bound to or requiring the removed unit failed, `Unit nr-dep.service not found.`, which its plan never said. Now
 * the plan says that start fails, why, and what to do; one PartOf= it still starts again; one whose new file drops
 * the line does not need it. Then each plan comes true: the dep's destroy, and the batch apply after it. A unit that
 * Requires= a removed instance starts it again (its template stays), which its plan says instead.
 */
import { linuxDomain } from '../../../handlers/linux/domain';
import { invoke, invokeBatch } from '../../support/run-handler';
import {
  hostTarget,
  instanceSpec,
  KEY_ENV,
  sleeperEntry,
  sleeperService,
  unitBatch,
  unitSpec,
  useSystemdHost,
} from '../../support/unit-host';

jest.setTimeout(120_000);

const { host, unit } = useSystemdHost();
const { apply } = unitBatch(host);
const DIR = '/etc/systemd/system';

const dep = sleeperEntry('nr-dep.service', '');
const needing = {
  rq: sleeperEntry('nr-rq.service', 'Requires=nr-dep.service\nAfter=nr-dep.service\n'),
  bt: sleeperEntry('nr-bt.service', 'BindsTo=nr-dep.service\nAfter=nr-dep.service\n'),
};
const po = sleeperEntry('nr-po.service', 'PartOf=nr-dep.service\n');
const changed = sleeperEntry('nr-ch.service', 'Requires=nr-dep.service\n');
const dropped = sleeperEntry('nr-ch.service', 'Description=no longer needs its dep\n');

const active = async (name: string) => (await host().exec(`systemctl is-active -- ${name}`)).stdout.trim();

test("a plan removing a unit says its dependents' start fails where they need it; the apply agrees", async () => {
  expect(await apply({ dep, ...needing, po, ch: changed })).toMatchObject({ code: 0 });
  const removing = JSON.stringify({
    dep: { kind: 'systemd-unit', identity: { name: 'nr-dep.service', directory: DIR } },
  });
  const env = { [KEY_ENV]: host().privateKey };
  const declared = { ...needing, po, ch: dropped };
  const planned = await invokeBatch(linuxDomain(), hostTarget(host()), declared, env, { '.removing': removing });
  expect(planned).toMatchObject({ code: 0 });
  const said = planned.result ?? {};
  const fails =
    'its start after fails (Unit nr-dep.service not found): it BindsTo=, Requires= or Requisite= it; keep ' +
    'nr-dep.service in the stack, or drop that line';
  for (const name of ['rq', 'bt']) {
    expect([name, said[`${name}.in_sync`]]).toEqual([name, 'false']);
    expect(said[`${name}.summary`]).toContain(fails);
    expect(said[`${name}.summary`]).toContain('running, which fails: it does not start without nr-dep.service');
  }
  expect(said['po.summary']).toContain(
    'the destroy of nr-dep.service, which this plan runs before the apply, stops it',
  );
  expect(said['po.summary']).not.toContain('fails');
  expect(said['ch.summary']).toContain(
    'the destroy of nr-dep.service, which this plan runs before the apply, stops it',
  );
  expect(said['ch.summary']).not.toContain('fails');

  // The apply: the dep's destroy hook first, then the host's batch apply.
  expect(await unit.run('destroy', dep.spec)).toMatchObject({ code: 0 });
  expect(await apply({ po, ch: dropped })).toMatchObject({ code: 0 });
  expect([await active('nr-po.service'), await active('nr-ch.service')]).toEqual(['active', 'active']);
  for (const [name, object] of Object.entries(needing)) {
    const applied = await apply({ [name]: object });
    expect([name, applied.code]).not.toEqual([name, 0]);
    expect(applied.stderr).toContain('nr-dep.service not found');
    expect(await active(object.spec.name)).not.toBe('active');
  }
});

test('a plan removing an instance says a unit that Requires= it starts it again, and the apply does', async () => {
  const template = {
    kind: 'systemd-unit',
    spec: unitSpec('nr-t@.service', sleeperService(''), { enabled: false, started: false }),
  };
  const instance = { kind: 'systemd-instance', spec: instanceSpec('nr-t@a.service'), after: ['t'] };
  const user = sleeperEntry('nr-ri.service', 'Requires=nr-t@a.service\nAfter=nr-t@a.service\n');
  expect(await apply({ t: template, i: instance, u: user })).toMatchObject({ code: 0 });
  const identity = { name: 'nr-t@a.service', directory: DIR };
  const removing = JSON.stringify({ i: { kind: 'systemd-instance', identity } });
  const env = { [KEY_ENV]: host().privateKey };
  const declared = { t: template, u: user };
  const planned = await invokeBatch(linuxDomain(), hostTarget(host()), declared, env, { '.removing': removing });
  expect(planned).toMatchObject({ code: 0 });
  const said = planned.result?.['u.summary'] ?? '';
  expect(said).toContain('running, which starts nr-t@a.service again with it');
  expect(said).toContain('its start after starts nr-t@a.service again, whose template stays');
  expect(said).not.toContain('fails');

  const destroyed = await invoke(linuxDomain(), 'systemd-instance', 'destroy', hostTarget(host()), identity, env);
  expect(destroyed).toMatchObject({ code: 0 });
  expect(await active('nr-ri.service')).not.toBe('active');
  expect(await apply(declared)).toMatchObject({ code: 0 });
  expect([await active('nr-ri.service'), await active('nr-t@a.service')]).toEqual(['active', 'active']);
});
