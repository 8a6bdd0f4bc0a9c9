/**
 * A unit changed on the host between its plan and its apply, on real systemd 252. The apply acted on its own read:
 * a plan that said only "stopped, want running" was followed by an apply that wrote its file over a hand edit and
 * started it, and one that said only "disabled, want enabled" restarted a unit given a drop-in by hand, neither named
 * by the plan. The plan's reading now travels to the apply (unit-basis.ts), which refuses that unit alone.
 */
import { linuxDomain } from '../../../handlers/linux/domain';
import type { DropInSpec } from '../../../src/linux/systemd-drop-in';
import { type ApplyEntry, invokeBatch, invokeBatchApply } from '../../support/run-handler';
import { hostTarget, KEY_ENV, unitSpec, useSystemdHost, variantDropIn } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host, unit } = useSystemdHost();
const DIR = '/etc/systemd/system';

const service = (v: string) =>
  `[Unit]\nDescription=race\n[Service]\nEnvironment=V=${v}\nExecStart=/bin/sleep infinity\n` +
  '[Install]\nWantedBy=multi-user.target\n';
type Declared = ReturnType<typeof unitSpec> | DropInSpec;
const kindOf = (spec: Declared) => ('unit' in spec ? 'systemd-drop-in' : 'systemd-unit');
const nameOf = (spec: Declared) => ('unit' in spec ? `${spec.unit}_${spec.name}` : spec.name).replace(/\W/g, '_');
const objects = (...specs: Declared[]): Record<string, ApplyEntry> =>
  Object.fromEntries(specs.map((spec) => [nameOf(spec), { kind: kindOf(spec), spec }]));
const dropIn = (v: string): DropInSpec => variantDropIn('pr-f.service', v);

/** A plan of `specs`, `between` run on the host after it, then the apply with the plan's reading (HOMELAB_BASIS). */
const planThenApply = async (specs: Declared[], between: string, basis = true) => {
  const env = { [KEY_ENV]: host().privateKey };
  const plan = (await invokeBatch(linuxDomain(), hostTarget(host()), objects(...specs), env)).result ?? {};
  expect(await host().exec(between)).toMatchObject({ code: 0 });
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
  expect(plan['.basis']).toMatch(/"pr_a_service":"unit read [0-9a-f]{16}"/);
  expect(applied.code).toBe(1);
  expect(applied.stderr).toMatch(
    /pr_a_service: not applied: pr-a\.service on \S+ cannot be applied as planned: it was changed after the plan read/,
  );
  expect(applied.stderr).toContain('nothing was written, started, stopped or restarted for it: plan again');
  expect(await file('pr-a.service')).toBe(service('hand'));
  expect(await state('pr-a.service')).toMatch(/^inactive\n/);
  expect(await state('pr-b.service')).toMatch(/^active\n/);
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

test("an apply without a plan's reading (an earlier version made its apply resource) acts as before", async () => {
  await made(unitSpec('pr-e.service', service('e'), { started: false }));
  const edit = `printf '%s' '${service('hand')}' > ${DIR}/pr-e.service`;
  const { applied } = await planThenApply([unitSpec('pr-e.service', service('e'))], edit, false);
  expect(applied.code).toBe(0);
  expect(await file('pr-e.service')).toBe(service('e'));
  expect(await state('pr-e.service')).toMatch(/^active\n/);
});
