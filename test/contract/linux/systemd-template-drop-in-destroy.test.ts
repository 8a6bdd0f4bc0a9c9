/**
 * A template's drop-in destroyed while instances of that template run with it, one the stack declares and one started
 * by hand, on real systemd 252. Regression: the destroy said the template "keeps its current settings until it
 * restarts" (a template never runs), restarted nothing, and the next plan was in sync while the instance started by
 * hand ran on the removed drop-in's `Environment=`: nothing restarted it and nothing said so (the `.d/` went with the
 * file, so nothing dates the removal). Now the destroy restarts, without it, the running instances no stack declares,
 * as the drop-in's apply restarted them with it, and names the stack's, which it leaves to their plan (restart pending)
 * as it leaves a plain unit.
 */
import { linuxDomain } from '../../../handlers/linux/domain';
import { invoke, invokeBatch } from '../../support/run-handler';
import { hostTarget, instanceSpec, KEY_ENV, unitBatch, unitSpec, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host } = useSystemdHost();
const { plan, apply } = unitBatch(host);
const DIR = '/etc/systemd/system';
const sleeper = '[Service]\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=multi-user.target\n';

/** The TK= of an instance's running process, from /proc, and its InvocationID. */
const running = async (name: string) => {
  const pid = `$(systemctl show -p MainPID --value -- ${name})`;
  const env = await host().exec(`tr '\\0' '\\n' < /proc/${pid}/environ | sed -n 's/^TK=//p'`);
  const id = await host().exec(`systemctl show -p InvocationID --value -- ${name}`);
  return { tk: env.stdout.trim(), invocation: id.stdout.trim() };
};

const identity = { unit: 'tk@.service', name: '10-env', directory: DIR };
const dropIn = {
  kind: 'systemd-drop-in',
  spec: { ...identity, content: '[Service]\nEnvironment=TK=on\n', startTimeoutSeconds: 90 },
};

/**
 * The summary of the host's read of `objects` by a plan that removes the drop-in `d` at `place`: the plan names the
 * instances its destroy restarts (src/core/batch-removals.ts).
 */
const planRemoving = async (objects: Record<string, unknown>, place: object, target = hostTarget(host())) => {
  const removing = JSON.stringify({ d: { kind: 'systemd-drop-in', identity: place } });
  const env = { [KEY_ENV]: host().privateKey };
  const planned = await invokeBatch(linuxDomain(), target, objects as never, env, { '.removing': removing });
  expect(planned).toMatchObject({ code: 0 });
  return planned.result?.['.summary'] ?? '';
};

/** What the plan that removes the drop-in at `path` says its destroy restarts. */
const restartsSaid = (path: string, names: string) =>
  `the removal of 1 object does more than its "will be destroyed" says:\n- d: drop-in ${path} on ` +
  `127.0.0.1:${host().port}, if this plan destroys it: its destroy restarts ${names} without it (running, and no ` +
  'stack declares it)';

/** A template of `content` and its drop-in `10-env` setting `setting`, applied; the drop-in's place. */
const applyTemplate = async (template: string, content: string, setting: string) => {
  const place = { unit: template, name: '10-env', directory: DIR };
  const spec = { ...place, content: `[Service]\nEnvironment=${setting}\n`, startTimeoutSeconds: 90 };
  const objects = {
    t: { kind: 'systemd-unit', spec: unitSpec(template, content, { enabled: false, started: false }) },
    d: { kind: 'systemd-drop-in', spec, after: ['t'] },
  };
  expect(await apply(objects)).toMatchObject({ code: 0 });
  return place;
};

test("a template drop-in's destroy restarts the instances no stack declares and names those it leaves", async () => {
  const base = {
    t: { kind: 'systemd-unit', spec: unitSpec('tk@.service', sleeper, { enabled: false, started: false }) },
    i: { kind: 'systemd-instance', spec: instanceSpec('tk@a.service'), after: ['t'] },
  };
  expect(await apply({ ...base, d: { ...dropIn, after: ['t'] } })).toMatchObject({ code: 0 });
  expect((await host().exec('systemctl start tk@x.service')).code).toBe(0);
  expect((await running('tk@x.service')).tk).toBe('on');
  expect((await running('tk@a.service')).tk).toBe('on');
  const before = { a: await running('tk@a.service'), x: await running('tk@x.service') };
  // The plan that removes it names the instance its destroy restarts: the one started by hand, not the stack's.
  expect(await planRemoving(base, identity)).toBe(restartsSaid(`${DIR}/tk@.service.d/10-env.conf`, 'tk@x.service'));

  const env = { [KEY_ENV]: host().privateKey };
  const destroyed = await invoke(linuxDomain(), 'systemd-drop-in', 'destroy', hostTarget(host()), identity, env);
  expect(destroyed).toMatchObject({ code: 0 });
  expect(destroyed.stderr).toContain(
    `${DIR}/tk@.service.d/10-env.conf on 127.0.0.1:${host().port}: removed; ` +
      'restarted tk@x.service without it (no stack declares it); tk@a.service keeps its content until it restarts ' +
      '(a stack declares it: its plan says the restart is pending)',
  );
  // The one started by hand runs without it, a new process; the stack's runs on, the same process, until its apply.
  const after = await running('tk@x.service');
  expect(after.tk).toBe('');
  expect(after.invocation).not.toBe(before.x.invocation);
  expect(await running('tk@a.service')).toEqual(before.a);

  const planned = (await plan(base)).result ?? {};
  expect(planned['i.summary']).toContain('restart pending: its process started before its content changed');
  expect(planned['t.in_sync']).toBe('true');
  expect(planned['.converges']).toBe('true');
  expect(await apply({ i: base.i })).toMatchObject({ code: 0, stderr: expect.stringMatching(/^i: restarted/m) });
  expect((await running('tk@a.service')).tk).toBe('');
  expect(await running('tk@x.service')).toEqual(after);
  expect((await plan(base)).result).toMatchObject({ '.in_sync': 'true' });
  // Once it is destroyed, a plan that still removes it (its tombstone not pruned yet) says nothing of it.
  expect(await planRemoving(base, identity)).toBe('all 2 objects are in sync');
});

test('an instance started by hand that fails without the drop-in fails the destroy, naming it', async () => {
  // The instance needs the drop-in's TF=: without it, its ExecStart= exits at once.
  const needy = '[Service]\nExecStart=/bin/sh -c \'test -n "$TF" && exec sleep infinity\'\n';
  const place = await applyTemplate('tf@.service', needy, 'TF=on');
  expect((await host().exec('systemctl start tf@y.service')).code).toBe(0);

  const env = { [KEY_ENV]: host().privateKey };
  const destroyed = await invoke(linuxDomain(), 'systemd-drop-in', 'destroy', hostTarget(host()), place, env);
  expect(destroyed.code).not.toBe(0);
  expect(destroyed.stderr).toContain(
    `drop-in ${DIR}/tf@.service.d/10-env.conf on 127.0.0.1:${host().port} was removed, but not every instance ` +
      'restarted without it',
  );
  expect(destroyed.stderr).toContain('restarted without it: tf@y.service did not become active: it is failed/failed');
  expect((await host().exec(`test -e ${DIR}/tf@.service.d/10-env.conf`)).code).not.toBe(0);
  // Nothing is left to remove: destroying again says so and succeeds.
  const again = await invoke(linuxDomain(), 'systemd-drop-in', 'destroy', hostTarget(host()), place, env);
  expect(again).toMatchObject({ code: 0, stderr: expect.stringContaining('already absent') });
});

// The state a destroy stopped after its removal leaves: the file gone, systemd reloaded, the mark still there; the
// destroys log in as deploy, through sudo and the root helper.
test('a destroy stopped before the restarts leaves the mark, and the next destroy restarts them', async () => {
  const place = await applyTemplate('tz@.service', sleeper, 'TK=on');
  expect((await host().exec('systemctl start tz@z.service')).code).toBe(0);
  expect((await running('tz@z.service')).tk).toBe('on');
  expect((await host().exec(`rm ${DIR}/tz@.service.d/10-env.conf && systemctl daemon-reload`)).code).toBe(0);

  const env = { [KEY_ENV]: host().privateKey };
  const viaSudo = () => hostTarget(host(), { user: 'deploy', sudo: true });
  // Its file gone, its mark left: the plan says what the destroy does.
  expect(await planRemoving({}, place, viaSudo())).toBe(
    restartsSaid(`${DIR}/tz@.service.d/10-env.conf`, 'tz@z.service'),
  );
  const destroyed = await invoke(linuxDomain(), 'systemd-drop-in', 'destroy', viaSudo(), place, env);
  expect(destroyed).toMatchObject({ code: 0 });
  expect(destroyed.stderr).toContain(': already absent; restarted tz@z.service without it (no stack declares it)');
  expect((await running('tz@z.service')).tk).toBe('');
  const again = await invoke(linuxDomain(), 'systemd-drop-in', 'destroy', viaSudo(), place, env);
  expect(again).toMatchObject({ code: 0, stderr: expect.stringContaining('already absent') });
  expect(again.stderr).not.toContain('restarted');
});
