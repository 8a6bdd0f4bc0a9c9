/**
 * PVE tests a metric server's target on every create and update and refuses the write (500) when it cannot reach it
 * ([PM] 14a22df PVE/API2/Cluster/MetricServer.pm:178, :252; the fake's metric-reach.ts). Regression: the fake took any
 * target, so nothing showed what an apply says then; a refused update still stores the token it sent (PVE's
 * on_update_hook writes it before the test), which an apply must say, and one server's refusal fails it alone.
 */
import { pveDomain } from '../../../handlers/pve/domain';
import { invoke, invokeBatchApply } from '../../support/run-handler';
import { useFakePveOverTls } from '../../support/fake-pve-tls';
import { INFLUX_HTTPS } from '../../support/metric-specs';

const env = { PROXMOX_VE_API_TOKEN: 'root@pam!homelab=fake-secret-0000', INFLUX_TOKEN: 'influx-token-1' };

const { fake, target } = useFakePveOverTls({
  'root@pam!homelab': { secret: 'fake-secret-0000', privileges: 'modify' },
});

const influx = INFLUX_HTTPS;
const graphite = { id: 'graphite', type: 'graphite', server: 'carbon.lan', port: 2003, options: {} };
const otel = { id: 'otel', type: 'opentelemetry', server: 'otel.lan', port: 4318, options: {} };

const apply = (spec: object, extraEnv: NodeJS.ProcessEnv = {}) =>
  invoke(pveDomain(), 'metric-server', 'apply', target(), spec, { ...env, ...extraEnv });
const applyAll = (...specs: Array<{ id: string }>) =>
  invokeBatchApply(
    pveDomain(),
    target(),
    Object.fromEntries(specs.map((spec) => [spec.id, { kind: 'metric-server', spec }])),
    env,
  );

test('a create PVE refuses on its target test fails that server alone, saying nothing was created', async () => {
  fake().failMetricTarget('10.0.0.5', 8089, 'refused');
  const applied = await applyAll(influx, graphite);
  expect(applied.code).toBe(1);
  expect(applied.stderr).toContain(
    `Metric server "influx" was not created: PVE's test of its target 10.0.0.5:8089 failed ` +
      "(PVE: 500 Can't connect to 10.0.0.5:8089 (Connection refused)); PVE wrote nothing. Make the target " +
      'answer from the PVE node, or declare another; then apply again',
  );
  expect(Object.keys(fake().metricServers())).toEqual(['graphite']);
  expect(fake().metricTokens()).toEqual({});
});

test('an update PVE refuses on its target test says the fields are as they were and the token was stored', async () => {
  expect((await apply(influx)).code).toBe(0);
  fake().failMetricTarget('10.0.0.5', 8090, 'refused');
  const applied = await apply({ ...influx, port: 8090 }, { INFLUX_TOKEN: 'influx-token-2' });
  expect(applied.code).toBe(1);
  expect(applied.stderr).toContain(
    `Metric server "influx" was not updated: PVE's test of its target 10.0.0.5:8090 failed ` +
      "(PVE: 500 Can't connect to 10.0.0.5:8090 (Connection refused)); its fields are as they were, but PVE " +
      'stored the token this apply sent (PVE writes it before the test). Make the target answer from the PVE ' +
      'node, or declare another; then apply again',
  );
  expect(fake().metricServers().influx).toMatchObject({ port: 8089 });
  expect(fake().metricTokens()).toEqual({ influx: 'influx-token-2' });
});

test.each([
  { what: 'an influxdb server over udp whose target refuses', spec: { ...influx, options: {} }, fault: 'refused' },
  { what: 'a graphite server over udp whose target refuses', spec: graphite, fault: 'refused' },
  {
    what: 'a disabled graphite server whose name does not resolve',
    spec: { ...graphite, options: { disable: true } },
    fault: 'unresolved',
  },
] as const)('$what is created: PVE opens no connection to test it', async ({ spec, fault }) => {
  fake().failMetricTarget(spec.server, spec.port, fault);
  expect((await apply(spec)).code).toBe(0);
  expect(Object.keys(fake().metricServers())).toEqual([spec.id]);
});

test.each([
  {
    what: 'a graphite server over tcp whose target refuses',
    spec: { ...graphite, options: { proto: 'tcp' } },
    fault: 'refused',
    pve: "couldn't create carbon socket [carbon.lan]:2003 - Connection refused",
  },
  {
    what: 'a graphite server over udp whose name does not resolve',
    spec: graphite,
    fault: 'unresolved',
    pve: "couldn't create carbon socket [carbon.lan]:2003 - Name or service not known",
  },
  {
    what: 'a disabled opentelemetry server whose target refuses',
    spec: { ...otel, options: { disable: true } },
    fault: 'refused',
    pve:
      "Connection test failed: 500 Can't connect to otel.lan:4318 (Connection refused) at " +
      '/usr/share/perl5/PVE/Status/OpenTelemetry.pm line 707.',
  },
] as const)("$what is refused in PVE's own words", async ({ spec, fault, pve }) => {
  fake().failMetricTarget(spec.server, spec.port, fault);
  const applied = await apply(spec);
  expect([applied.code, applied.stderr]).toEqual([1, expect.stringContaining(`(PVE: ${pve}); PVE wrote nothing`)]);
  expect(fake().metricServers()).toEqual({});
});
