/**
 * A declared running unit PartOf= a unit the plan removes whose destroy leaves it (made by hand and never adopted, or
 * another stack's), on real systemd 252. Regression: the plan said that destroy stops the declared unit and that it
 * starts again, and the destroy left the removed unit running, so nothing stopped. Now its plan says so only where
 * the destroy acts (adopted, or the stack's own), and the destroy and the apply after it do as the plan said.
 */
import { linuxDomain } from '../../../handlers/linux/domain';
import { canonicalJson } from '../../../src/core/canonical';
import { runHandler } from '../../../src/core/handler-cli';
import { APPLY, BATCH, ENV } from '../../../src/core/protocol';
import { restartOnPath } from '../../../src/linux/unit-file';
import { recordText } from '../../../src/linux/unit-intent';
import { destroyEnv } from '../../support/run-handler';
import { hostTarget, KEY_ENV, sleeperEntry, sleeperService, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host } = useSystemdHost();
const DIR = '/etc/systemd/system';
const STACK = 'green';
const STOPS = (dep: string) => `the destroy of ${dep}, which this plan runs before the apply, stops it too`;

/** Runs the handler as a hook of this stack does; `stdin` for a batch read. */
const run = async (argv: string[], env: NodeJS.ProcessEnv, stdin = '') => {
  const log: string[] = [];
  const out: string[] = [];
  const io = {
    stdin: async () => stdin,
    env: { [KEY_ENV]: host().privateKey, [ENV.stack]: STACK, ...env },
    out: (line: string) => out.push(line),
    log: (line: string) => log.push(line),
  };
  const code = await runHandler(linuxDomain(), argv, io);
  const result = out.length > 0 ? (JSON.parse(out.join('')) as Record<string, string>) : undefined;
  return { code, stderr: log.join('\n'), result: result ?? {} };
};

type Entry = ReturnType<typeof sleeperEntry>;

/** The batch read of `po` by a plan that removes the unit `dep`, adopted or not. */
const planRemoving = (po: Entry, dep: string, adopt: boolean) => {
  const removing = { dep: { kind: 'systemd-unit', identity: { name: dep, directory: DIR }, adopt } };
  const query = {
    [BATCH.target]: canonicalJson(hostTarget(host())),
    [BATCH.stack]: STACK,
    [BATCH.removing]: JSON.stringify(removing),
    po: canonicalJson(po),
  };
  return run([BATCH.verb, 'read'], {}, JSON.stringify(query));
};

/** The batch apply of `po` alone, as drifted. */
const apply = (po: Entry) =>
  run([APPLY.verb, 'apply'], {
    [ENV.target]: canonicalJson(hostTarget(host())),
    [APPLY.drifted]: 'po',
    [`${APPLY.objectPrefix}0`]: canonicalJson({ ...po, after: [] }),
  });

/** The unit destroy hook of `dep`, as a construct saying `adopt` runs it. */
const destroy = (dep: string, adopt: boolean) =>
  run(['systemd-unit', 'destroy'], {
    ...destroyEnv(hostTarget(host()), { name: dep, directory: DIR }),
    ...(adopt ? { [ENV.adopt]: 'true' } : {}),
  });

const active = async (name: string) => (await host().exec(`systemctl is-active -- ${name}`)).stdout.trim();

/** `dep` written and started by hand, then `po` applied by the stack, running. */
const setUp = async (dep: string, po: Entry) => {
  expect((await host().exec(`printf '%s' '${sleeperService('')}' > ${DIR}/${dep}`)).code).toBe(0);
  expect((await host().exec(`systemctl daemon-reload && systemctl start ${dep}`)).code).toBe(0);
  expect(await apply(po)).toMatchObject({ code: 0 });
  expect([await active(dep), await active(po.spec.name)]).toEqual(['active', 'active']);
};

test('a plan removing a unit never adopted says nothing stops a unit PartOf= it, adopted that it does', async () => {
  const po = sleeperEntry('rl-po.service', 'PartOf=rl-dep.service\n');
  await setUp('rl-dep.service', po);
  const left = await planRemoving(po, 'rl-dep.service', false);
  expect(left).toMatchObject({ code: 0 });
  expect(left.result['po.summary']).not.toContain(STOPS('rl-dep.service'));
  expect(left.result['po.in_sync']).toBe('true');
  const adopted = await planRemoving(po, 'rl-dep.service', true);
  expect(adopted.result['po.in_sync']).toBe('false');
  expect(adopted.result['po.summary']).toContain(STOPS('rl-dep.service'));

  // Not adopted, the destroy leaves it, and the unit PartOf= it runs on.
  const kept = await destroy('rl-dep.service', false);
  expect(kept).toMatchObject({ code: 0 });
  expect(kept.stderr).toContain('left as it is');
  expect([await active('rl-dep.service'), await active('rl-po.service')]).toEqual(['active', 'active']);
  // Adopted, it stops it, and the batch apply starts it again, as that plan said.
  expect(await destroy('rl-dep.service', true)).toMatchObject({ code: 0 });
  expect(await active('rl-po.service')).not.toBe('active');
  expect(await apply(po)).toMatchObject({ code: 0 });
  expect(await active('rl-po.service')).toBe('active');
});

test("a plan removing another stack's unit says nothing stops a unit PartOf= it, adopt or not", async () => {
  const po = sleeperEntry('ro-po.service', 'PartOf=ro-dep.service\n');
  await setUp('ro-dep.service', po);
  const mark = recordText('0', undefined, 'blue');
  expect((await host().exec(`printf '%s' '${mark}' > ${restartOnPath({ name: 'ro-dep.service' })}`)).code).toBe(0);
  for (const adopt of [false, true]) {
    const planned = await planRemoving(po, 'ro-dep.service', adopt);
    const stops = expect.stringContaining(STOPS('ro-dep.service'));
    expect([adopt, planned.result['po.summary']]).not.toEqual([adopt, stops]);
    expect([adopt, planned.result['po.in_sync']]).toEqual([adopt, 'true']);
  }
  const kept = await destroy('ro-dep.service', true);
  expect(kept).toMatchObject({ code: 0 });
  expect(kept.stderr).toContain('marked by stack "blue", not this stack "green": left as it is');
  expect([await active('ro-dep.service'), await active('ro-po.service')]).toEqual(['active', 'active']);
});
