/**
 * A metric server edited on the cluster between its plan and its apply, against the fake PVE. The apply read the
 * section again and wrote what that read showed differing, so a field the plan read in sync and someone changed after
 * it was put back, and one the plan said it would change was written over the new value, neither named by the plan.
 * The plan's reading now travels to the apply (metric-basis.ts), which refuses that server alone, sending nothing.
 */
import { pveDomain } from '../../../handlers/pve/domain';
import { invokeBatch, invokeBatchApply } from '../../support/run-handler';
import { useFakePveOverTls } from '../../support/fake-pve-tls';
import { OTEL_HEADERS } from '../../support/metric-specs';

const env = {
  PROXMOX_VE_API_TOKEN: 'root@pam!homelab=fake-secret-0000',
  OTEL_HEADERS: JSON.stringify({ Authorization: 'Bearer one' }),
};

const { fake, target } = useFakePveOverTls({
  'root@pam!homelab': { secret: 'fake-secret-0000', privileges: 'modify' },
});

const graphite = (id: string, port = 2003) => ({
  id,
  type: 'graphite',
  server: '10.0.0.5',
  port,
  options: { mtu: 1500, path: 'proxmox' },
});
const otel = OTEL_HEADERS;
const objects = (...specs: Array<{ id: string }>) =>
  Object.fromEntries(specs.map((spec) => [spec.id, { kind: 'metric-server', spec }]));
const puts = (id: string) =>
  fake().requests.filter((request) => request.method === 'PUT' && request.path.endsWith(`/server/${id}`));

/** A plan of `specs`, `between` run after it, then the apply of them with what the plan read (HOMELAB_BASIS). */
type Spec = { id: string; port?: number };
const planThenApply = async (specs: Spec[], between: () => unknown, extra: object = {}) => {
  const plan = await invokeBatch(pveDomain(), target(), objects(...specs), env);
  await between();
  const basis = { HOMELAB_BASIS: plan.result?.['.basis'] ?? '' };
  const applied = await invokeBatchApply(pveDomain(), target(), objects(...specs), { ...env, ...basis, ...extra });
  return { plan: plan.result ?? {}, applied };
};
const edit = (id: string, fields: object) => fake().setMetricServer(id, { ...fake().metricServers()[id], ...fields });
const made = async (...specs: Array<{ id: string }>) =>
  expect(await invokeBatchApply(pveDomain(), target(), objects(...specs), env)).toMatchObject({ code: 0 });

test.each([
  { how: 'a field the plan read in sync', field: 'mtu', value: 1400 },
  { how: 'a field the plan said it changes', field: 'port', value: 2010 },
  { how: 'a field the stack does not declare', field: 'timeout', value: 3 },
])('a server with $how edited between plan and apply is refused alone, nothing sent', async ({ field, value }) => {
  await made(graphite('ga'), graphite('gb'));
  const { plan, applied } = await planThenApply([graphite('ga', 2004), graphite('gb', 2004)], () =>
    edit('ga', { [field]: value }),
  );
  expect(plan['ga.summary']).toBe('metric server "ga" differs: port is 2003, want 2004');
  expect(applied.code).toBe(1);
  expect(applied.stderr).toContain(
    'ga: not applied: Metric server "ga" cannot be applied as planned: it was changed after the plan read it (a ' +
      'field of its section, or its otel headers, or the declared headers), so this apply would write over that ' +
      'change, which the plan did not say; nothing was written: plan again',
  );
  expect(puts('ga')).toEqual([]);
  expect(fake().metricServers().ga).toMatchObject({ [field]: value });
  expect(fake().metricServers().gb).toMatchObject({ port: 2004 });
});

test('a server deleted between plan and apply is not created again', async () => {
  await made(graphite('ga'));
  const { applied } = await planThenApply([graphite('ga', 2004)], () => fake().deleteMetricServer('ga'));
  expect(applied.stderr).toContain(
    'Metric server "ga" cannot be applied as planned: it was deleted (or its id taken by a section of another ' +
      'type) after the plan read it, so this apply would create it, which the plan did not say; nothing was written',
  );
  expect(fake().metricServers()).toEqual({});
});

test('otel headers changed on the cluster, or declared anew, between plan and apply refuse the server', async () => {
  await made(otel);
  const other = Buffer.from(JSON.stringify({ Authorization: 'Bearer two' })).toString('base64');
  const edited = await planThenApply([{ ...otel, port: 4319 }], () => edit('otel', { 'otel-headers': other }));
  expect(edited.applied.stderr).toContain('Metric server "otel" cannot be applied as planned: it was changed');
  expect(fake().metricServers().otel).toMatchObject({ port: 4318, 'otel-headers': other });
  await made(otel);
  const redeclared = await planThenApply([{ ...otel, port: 4319 }], () => undefined, {
    OTEL_HEADERS: JSON.stringify({ Authorization: 'Bearer three' }),
  });
  expect(redeclared.applied.stderr).toContain('Metric server "otel" cannot be applied as planned: it was changed');
  expect(redeclared.plan['.basis']).not.toContain('Bearer');
});

test("an apply without a plan's reading (an earlier version made its apply resource) writes as before", async () => {
  await made(graphite('ga'));
  const { applied } = await planThenApply([graphite('ga', 2004)], () => edit('ga', { port: 2010 }), {
    HOMELAB_BASIS: '',
  });
  expect(applied.code).toBe(0);
  expect(fake().metricServers().ga).toMatchObject({ port: 2004 });
});
