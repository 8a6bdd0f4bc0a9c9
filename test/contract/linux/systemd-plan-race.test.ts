/**
 * A unit changed on the host between its plan and its apply, on real systemd 252. The apply acted on its own read:
 * a plan that said only "stopped, want running" was followed by an apply that wrote its file over a hand edit and
 * started it, and one that said only "disabled, want enabled" restarted a unit given a drop-in by hand, neither named
 * by the plan; one whose drop-in was removed by hand started it without it. The plan's reading now travels to the
 * apply (unit-basis.ts), which refuses that unit alone.
 */
import { linuxDomain } from '../../../handlers/linux/domain';
import { sha256Hex } from '../../../src/core/canonical';
import type { DropInSpec } from '../../../src/linux/systemd-drop-in';
import { type ApplyEntry, invoke, invokeBatch, invokeBatchApply } from '../../support/run-handler';
import { hostTarget, instanceSpec, KEY_ENV, unitSpec, useSystemdHost, variantDropIn } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host, unit } = useSystemdHost();
const DIR = '/etc/systemd/system';

const service = (v: string) =>
  `[Unit]\nDescription=race\n[Service]\nEnvironment=V=${v}\nExecStart=/bin/sleep infinity\n` +
  '[Install]\nWantedBy=multi-user.target\n';
type Declared = ReturnType<typeof unitSpec> | DropInSpec | ReturnType<typeof instanceSpec>;
const kindOf = (spec: Declared) =>
  'unit' in spec ? 'systemd-drop-in' : 'template' in spec ? 'systemd-instance' : 'systemd-unit';
const nameOf = (spec: Declared) => ('unit' in spec ? `${spec.unit}_${spec.name}` : spec.name).replace(/\W/g, '_');
/** Each spec by name, an instance after the template declared before it (the batch applies a template first). */
const objects = (...specs: Declared[]): Record<string, ApplyEntry> =>
  Object.fromEntries(
    specs.map((spec) => {
      const after = 'template' in spec ? { after: [nameOf(unitSpec(spec.template, ''))] } : {};
      return [nameOf(spec), { kind: kindOf(spec), spec, ...after }];
    }),
  );
const dropIn = (v: string): DropInSpec => variantDropIn('pr-f.service', v);

/**
 * A plan of `specs`, `between` after it (a command run on the host, or a handler run), then the apply with the plan's
 * reading (HOMELAB_BASIS).
 */
const planThenApply = async (specs: Declared[], between: string | (() => Promise<unknown>), basis = true) => {
  const env = { [KEY_ENV]: host().privateKey };
  const plan = (await invokeBatch(linuxDomain(), hostTarget(host()), objects(...specs), env)).result ?? {};
  if (typeof between === 'string') expect(await host().exec(between)).toMatchObject({ code: 0 });
  else await between();
  const planned = { HOMELAB_BASIS: basis ? (plan['.basis'] ?? '') : '' };
  const applied = await invokeBatchApply(linuxDomain(), hostTarget(host()), objects(...specs), { ...env, ...planned });
  return { plan, applied };
};
const made = async (spec: ReturnType<typeof unitSpec>) => expect((await unit.run('apply', spec)).code).toBe(0);
const state = async (name: string) =>
  (await host().exec(`systemctl show -p ActiveState,InvocationID --value -- ${name}`)).stdout;
const file = async (name: string) => (await host().exec(`cat ${DIR}/${name}`)).stdout;

test('a unit whose file was edited by hand after a plan that said only "stopped" is refused alone', async () => {
  await made(unitSpec('pr-a.service', service('a'), { started: false }));
  await made(unitSpec('pr-b.service', service('b'), { started: false }));
  const declared = [unitSpec('pr-a.service', service('a')), unitSpec('pr-b.service', service('b'))];
  const { plan, applied } = await planThenApply(declared, `printf '%s' '${service('hand')}' > ${DIR}/pr-a.service`);
  expect(plan['pr_a_service.summary']).toMatch(
    /^unit pr-a\.service on \S+ \(inactive\/dead\) differs: running is "inactive\/dead", want "running"$/,
  );
  expect(plan['.basis']).toMatch(/"pr_a_service":"unit read by stamp [0-9a-f]{16} drop-ins none"/);
  expect(applied.code).toBe(1);
  expect(applied.stderr).toMatch(
    /pr_a_service: not applied: pr-a\.service on \S+ cannot be applied as planned: it was changed after the plan read/,
  );
  expect(applied.stderr).toContain('nothing was written, started, stopped or restarted for it: plan again');
  expect(await file('pr-a.service')).toBe(service('hand'));
  expect(await state('pr-a.service')).toMatch(/^inactive\n/);
  expect(await state('pr-b.service')).toMatch(/^active\n/);
});

// Regression: the plan said `file is "sha256:<12 hex>"` of a file edited by hand, and the basis held a digest over its
// sha256: a secret in it could be guessed and tested offline by anyone holding the plan or the state.
test('files edited to hold a secret are planned by their size; a same-size edit after the plan refuses', async () => {
  await made(unitSpec('pr-s.service', service('s'), { started: false }));
  const env = { [KEY_ENV]: host().privateKey };
  const first = objects(variantDropIn('pr-s.service', 's'));
  expect(await invokeBatchApply(linuxDomain(), hostTarget(host()), first, env)).toMatchObject({ code: 0 });
  const [unitText, dropInText] = [
    service('s').replace('V=s', 'TOKEN=hunter2'),
    '[Service]\nEnvironment=TOKEN=hunter2\n',
  ];
  const put = (text: string, path: string) => `printf '%s' '${text}' > ${DIR}/${path}`;
  expect(
    await host().exec(`${put(unitText, 'pr-s.service')} && ${put(dropInText, 'pr-s.service.d/10-v.conf')}`),
  ).toMatchObject({ code: 0 });
  const declared = [unitSpec('pr-s.service', service('s'), { started: false }), variantDropIn('pr-s.service', 's')];
  const same = put(unitText.replace('hunter2', 'hunter3'), 'pr-s.service');
  const { plan, applied } = await planThenApply(declared, same);
  expect(plan['pr_s_service.summary']).toContain(`file is "not the declared content (${unitText.length} bytes)"`);
  expect(plan['pr_s_service_10_v.summary']).toContain(
    `file is "not the declared content (${dropInText.length} bytes)"`,
  );
  const said = JSON.stringify(plan);
  for (const live of [sha256Hex(unitText), sha256Hex(dropInText)]) {
    for (let at = 0; at + 8 <= live.length; at++) expect(said).not.toContain(live.slice(at, at + 8));
  }
  expect(applied.stderr).toMatch(
    /pr_s_service: not applied: pr-s\.service on \S+ cannot be applied as planned: it was/,
  );
  expect(await file('pr-s.service')).toBe(unitText.replace('hunter2', 'hunter3'));
});

test('a unit restarted by hand after its plan is still the unit the plan read: the apply enables it', async () => {
  await made(unitSpec('pr-d.service', service('d'), { enabled: false }));
  const { applied } = await planThenApply([unitSpec('pr-d.service', service('d'))], 'systemctl restart pr-d.service');
  expect(applied.code).toBe(0);
  expect((await host().exec('systemctl is-enabled pr-d.service')).stdout.trim()).toBe('enabled');
});

test('a drop-in edited by hand after a plan that said it rewrites it is left as edited, its unit alone', async () => {
  await made(unitSpec('pr-f.service', service('f')));
  const env = { [KEY_ENV]: host().privateKey };
  expect(await invokeBatchApply(linuxDomain(), hostTarget(host()), objects(dropIn('a')), env)).toMatchObject({
    code: 0,
  });
  const before = await state('pr-f.service');
  const path = `${DIR}/pr-f.service.d/10-v.conf`;
  const { plan, applied } = await planThenApply([dropIn('b')], `printf '[Service]\\nEnvironment=V=hand\\n' > ${path}`);
  expect(plan['pr_f_service_10_v.summary']).toMatch(/differs: file is /);
  expect(applied.stderr).toContain(
    `drop-in ${path} on ${host().host}:${host().port} cannot be applied as planned: it or its unit was changed after`,
  );
  expect(applied.stderr).toContain('nothing was written or restarted for it: plan again');
  expect(await file('pr-f.service.d/10-v.conf')).toBe('[Service]\nEnvironment=V=hand\n');
  expect(await state('pr-f.service')).toBe(before);
});

test('a drop-in added by hand after a plan that said only "stopped" refuses its unit, left stopped', async () => {
  await made(unitSpec('pr-g.service', service('g'), { started: false }));
  const hand = `${DIR}/pr-g.service.d/50-hand.conf`;
  const add = `mkdir -p ${DIR}/pr-g.service.d && printf '[Service]\\nEnvironment=V=hand\\n' > ${hand}`;
  const { plan, applied } = await planThenApply([unitSpec('pr-g.service', service('g'))], add);
  expect(plan['pr_g_service.summary']).toMatch(/differs: running is "inactive\/dead", want "running"$/);
  expect(applied.stderr).toContain(`pr-g.service on ${host().host}:${host().port} cannot be applied as planned`);
  expect(applied.stderr).toContain(`its drop-ins changed after the plan read it (${hand} was added or changed)`);
  expect(applied.code).toBe(1);
  expect(await state('pr-g.service')).toMatch(/^inactive\n/);
});

// Regression: a drop-in gone since the plan was taken for one the same apply's destroy removed, and the unit started
// without it (both cases, before drop-in-marks.ts). Only a drop-in carrying the stack's mark may go now.
test.each([
  ['with no daemon-reload (systemd still lists it)', 'pr-k', ''],
  ['and systemd reloaded', 'pr-l', ' && systemctl daemon-reload'],
])('a drop-in removed by hand %s after a plan that said only "stopped" refuses its unit', async (_, u, reload) => {
  const name = `${u}.service`;
  await made(unitSpec(name, service(u), { started: false }));
  const gone = `${DIR}/${name}.d/50-gone.conf`;
  const add = `mkdir -p ${DIR}/${name}.d && printf '[Service]\\n' > ${gone} && systemctl daemon-reload`;
  expect(await host().exec(add)).toMatchObject({ code: 0 });
  const { plan, applied } = await planThenApply([unitSpec(name, service(u))], `rm ${gone}${reload}`);
  const summary = plan[`${u.replace('-', '_')}_service.summary`];
  expect(summary).toMatch(/differs: running is "inactive\/dead", want "running"$/);
  expect(applied.stderr).toContain(`${name} on ${host().host}:${host().port} cannot be applied as planned`);
  expect(applied.stderr).toContain('its drop-ins changed after the plan read it (');
  expect(applied.code).toBe(1);
  expect(await state(name)).toMatch(/^inactive\n/);
});

test("a drop-in the stack's destroy removes after the plan refuses nothing: its unit starts without it", async () => {
  await made(unitSpec('pr-m.service', service('m'), { started: false }));
  const env = { [KEY_ENV]: host().privateKey };
  const first = objects(variantDropIn('pr-m.service', 'm'));
  expect(await invokeBatchApply(linuxDomain(), hostTarget(host()), first, env)).toMatchObject({ code: 0 });
  const identity = { unit: 'pr-m.service', name: '10-v', directory: DIR };
  const destroy = () => invoke(linuxDomain(), 'systemd-drop-in', 'destroy', hostTarget(host()), identity, env);
  const trace = `/var/lib/cdktf-homelab/removed${DIR}/pr-m.service.d/10-v.conf`;
  const destroyed = async () => {
    expect(await destroy()).toMatchObject({ code: 0 });
    // Its trace, root's alone to write: the file's stamp (ctime, device:inode), nothing of its content.
    const traced = await host().exec(`stat -c '%U %a' ${trace} ${trace.replace(/\/etc\/.*/, '')} && cat ${trace}`);
    expect(traced.stdout).toMatch(/^root 644\nroot 755\n\d+(\.\d+)? \d+:\d+\n$/);
  };
  const { applied } = await planThenApply([unitSpec('pr-m.service', service('m'))], destroyed);
  expect(applied).toMatchObject({ code: 0, stderr: expect.stringMatching(/^pr_m_service: started/m) });
  expect(await host().exec(`test -e ${trace}`)).toMatchObject({ code: 1 });
  expect(await host().exec(`test -e ${DIR}/pr-m.service.d/10-v.conf`)).toMatchObject({ code: 1 });
  expect(await state('pr-m.service')).toMatch(/^active\n/);
});

// Regression: a drop-in carrying the stack's mark was taken for one the same apply's destroy removed, and the unit
// started without it. Only one a destroy of that apply removed (its trace on the host) may go now.
test.each([
  ['with no daemon-reload (systemd still lists it)', 'pr-n', ''],
  ['and systemd reloaded', 'pr-o', ' && systemctl daemon-reload'],
])("a drop-in of the stack's removed by hand %s after the plan refuses its unit, stopped", async (_, u, reload) => {
  const name = `${u}.service`;
  await made(unitSpec(name, service(u), { started: false }));
  const env = { [KEY_ENV]: host().privateKey };
  const first = objects(variantDropIn(name, u));
  expect(await invokeBatchApply(linuxDomain(), hostTarget(host()), first, env)).toMatchObject({ code: 0 });
  const path = `${DIR}/${name}.d/10-v.conf`;
  const { plan, applied } = await planThenApply([unitSpec(name, service(u))], `rm ${path}${reload}`);
  const summary = plan[`${u.replace('-', '_')}_service.summary`];
  expect(summary).toMatch(/differs: running is "inactive\/dead", want "running"$/);
  expect(applied.stderr).toContain(`${name} on ${host().host}:${host().port} cannot be applied as planned`);
  expect(applied.stderr).toContain(`its drop-ins changed after the plan read it (${path}, the stack's, was removed`);
  expect(applied.code).toBe(1);
  expect(await state(name)).toMatch(/^inactive\n/);
});

test('a drop-in added by hand beside one the plan rewrites refuses that one: its unit is not restarted', async () => {
  await made(unitSpec('pr-j.service', service('j')));
  const env = { [KEY_ENV]: host().privateKey };
  const first = objects(variantDropIn('pr-j.service', 'a'));
  expect(await invokeBatchApply(linuxDomain(), hostTarget(host()), first, env)).toMatchObject({ code: 0 });
  const before = await state('pr-j.service');
  const hand = `${DIR}/pr-j.service.d/50-hand.conf`;
  const { applied } = await planThenApply(
    [variantDropIn('pr-j.service', 'b')],
    `printf '[Service]\\nEnvironment=W=hand\\n' > ${hand}`,
  );
  expect(applied.stderr).toContain(
    `its unit's other drop-ins changed after the plan read them (${hand} was added or changed)`,
  );
  expect(await file('pr-j.service.d/10-v.conf')).toBe('[Service]\nEnvironment=V=a\n');
  expect(await state('pr-j.service')).toBe(before);
});

test("a template's drop-in added by hand after the plan refuses the instance the plan said it starts", async () => {
  const template = unitSpec('pr-t@.service', service('t'), { enabled: false, started: false });
  const env = { [KEY_ENV]: host().privateKey };
  const first = objects(template, instanceSpec('pr-t@x.service', { started: false }));
  expect(await invokeBatchApply(linuxDomain(), hostTarget(host()), first, env)).toMatchObject({ code: 0 });
  const hand = `${DIR}/pr-t@.service.d/50-hand.conf`;
  const add = `mkdir -p ${DIR}/pr-t@.service.d && printf '[Service]\\nEnvironment=V=hand\\n' > ${hand}`;
  const { applied } = await planThenApply([template, instanceSpec('pr-t@x.service')], add);
  expect(applied.stderr).toContain(`pr-t@x.service on ${host().host}:${host().port} cannot be applied as planned`);
  expect(applied.stderr).toContain(`(${hand} was added or changed)`);
  expect(await state('pr-t@x.service')).toMatch(/^inactive\n/);
});

test("an apply without a plan's reading (an earlier version made its apply resource) acts as before", async () => {
  await made(unitSpec('pr-e.service', service('e'), { started: false }));
  const edit = `printf '%s' '${service('hand')}' > ${DIR}/pr-e.service`;
  const { applied } = await planThenApply([unitSpec('pr-e.service', service('e'))], edit, false);
  expect(applied.code).toBe(0);
  expect(await file('pr-e.service')).toBe(service('e'));
  expect(await state('pr-e.service')).toMatch(/^active\n/);
});
