/**
 * The metric-server handler against the fake PVE (reference/pve-api.md §A1, §A6): every verb over
 * the CLI contract, the write-only token, `delete=` clearing, and PVE's own error texts kept. The batch
 * read is metric-server-batch-read.test.ts.
 */
import { pveDomain } from '../../../handlers/pve/domain';
import { invoke } from '../../support/run-handler';
import { useFakePveOverTls } from '../../support/fake-pve-tls';
import { INFLUX_HTTPS, OTEL_HEADERS } from '../../support/metric-specs';

const ADMIN = 'root@pam!homelab=fake-secret-0000';
const AUDITOR = 'audit@pve!ro=audit-secret';
const env = {
  PROXMOX_VE_API_TOKEN: ADMIN,
  INFLUX_TOKEN: 'influx-token-1',
  OTEL_HEADERS: '{"Authorization":"Bearer otel-1"}',
};

const { fake, target, restart } = useFakePveOverTls({
  'root@pam!homelab': { secret: 'fake-secret-0000', privileges: 'modify' },
  'audit@pve!ro': { secret: 'audit-secret', privileges: 'audit' },
});

const run = (verb: 'read' | 'apply' | 'destroy', object: object, extraEnv: NodeJS.ProcessEnv = {}) => {
  const processEnv = { ...env, ...extraEnv };
  return invoke(pveDomain(), 'metric-server', verb, target(), object, processEnv);
};

const influx = INFLUX_HTTPS;

const otelHeaders = OTEL_HEADERS;
/** Headers whose base64 is over PVE's 1024 characters. */
const LONG_HEADERS = { OTEL_HEADERS: JSON.stringify({ 'X-Pad': 'x'.repeat(800) }) };

describe('metric-server handler', () => {
  test('an absent server reads as absent, apply creates it with the token, and a second read is in sync', async () => {
    expect((await run('read', influx)).result).toEqual({
      in_sync: 'false',
      summary: 'metric server "influx" is absent',
      diff: '{}',
    });
    const applied = await run('apply', influx);
    expect(applied).toMatchObject({ code: 0 });
    expect(applied.stderr).toMatch(/creating \(influxdb 10.0.0.5:8089\)/);
    expect(fake().metricServers().influx).toEqual({
      type: 'influxdb',
      server: '10.0.0.5',
      port: 8089,
      influxdbproto: 'https',
      bucket: 'pve',
    });
    expect(fake().metricTokens()).toEqual({ influx: 'influx-token-1' });
    expect((await run('read', influx)).result).toEqual({
      in_sync: 'true',
      summary: 'metric server "influx" is in sync; its token is not compared (PVE never returns it)',
      diff: '{}',
    });
  });

  test('a hand edit reads as drift in words and in the diff, and one apply puts it back', async () => {
    await run('apply', influx);
    fake().setMetricServer('influx', {
      type: 'influxdb',
      server: '10.0.0.5',
      port: 9999,
      influxdbproto: 'https',
      bucket: 'pve',
      organization: 'hand',
    });
    const drift = (await run('read', influx)).result;
    expect(drift?.in_sync).toBe('false');
    expect(drift?.summary).toBe(
      'metric server "influx" differs: port is 9999, want 8089; organization is "hand", want unset; its token is ' +
        'not compared (PVE never returns it)',
    );
    expect(JSON.parse(drift?.diff ?? '')).toEqual({
      port: { live: 9999, want: 8089 },
      organization: { live: 'hand', want: null },
    });
    expect((await run('apply', influx)).code).toBe(0);
    const put = fake()
      .requests.filter((r) => r.method === 'PUT')
      .at(-1);
    expect(put?.body).toMatchObject({ port: '8089', delete: 'organization' });
    expect(fake().metricServers().influx).not.toHaveProperty('organization');
    expect((await run('read', influx)).result?.in_sync).toBe('true');
  });

  test('the token is sent on every apply and never appears in a read result or the request log', async () => {
    await run('apply', influx);
    await run('apply', influx, { INFLUX_TOKEN: 'influx-token-2' });
    expect(fake().metricTokens()).toEqual({ influx: 'influx-token-2' });
    const read = await run('read', influx, { INFLUX_TOKEN: 'influx-token-2' });
    expect(JSON.stringify(read)).not.toMatch(/influx-token/);
  });

  test('a token changed by hand reads in sync and drift in words that say the token is not compared', async () => {
    await run('apply', influx);
    const section = fake().metricServers().influx;
    fake().setMetricServer('influx', { ...section, token: 'changed-by-hand' });
    expect((await run('read', influx)).result).toEqual({
      in_sync: 'true',
      summary: 'metric server "influx" is in sync; its token is not compared (PVE never returns it)',
      diff: '{}',
    });
    fake().setMetricServer('influx', { ...section, port: 9999, token: 'changed-by-hand' });
    expect((await run('read', influx)).result?.summary).toBe(
      'metric server "influx" differs: port is 9999, want 8089; its token is not compared (PVE never returns it)',
    );
    const { tokenEnv: _none, ...tokenless } = influx;
    expect((await run('read', tokenless)).result?.summary).toBe(
      'metric server "influx" differs: port is 9999, want 8089',
    );
  });

  test('apply without the token variable fails naming it, and writes nothing', async () => {
    const failed = await run('apply', influx, { INFLUX_TOKEN: '' });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/the InfluxDB token is missing: environment variable INFLUX_TOKEN is not set/);
    expect(fake().metricServers()).toEqual({});
  });

  test('otel headers are compared by value, never shown, and rewritten when they change', async () => {
    const otel = otelHeaders;
    await run('apply', otel);
    expect((await run('read', otel)).result?.in_sync).toBe('true');
    const changed = { OTEL_HEADERS: '{"Authorization":"Bearer otel-2"}' };
    const drift = await run('read', otel, changed);
    expect(drift.result?.summary).toBe('metric server "otel" differs: otel-headers is "<secret>", want "<secret>"');
    expect(JSON.stringify(drift)).not.toMatch(/otel-[12]|QmVhcmVy/);
    await run('apply', otel, changed);
    expect((await run('read', otel, changed)).result?.in_sync).toBe('true');
  });

  test('a section of another type holding the id reads as absent and the create fails loudly', async () => {
    fake().setMetricServer('influx', { type: 'graphite', server: 'g', port: 2003 });
    expect((await run('read', influx)).result?.summary).toMatch(/absent: the id is held by a graphite section/);
    const failed = await run('apply', influx);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/a graphite section already holds this id .*Metric server 'influx' already exists/);
    expect(fake().metricServers().influx).toEqual({ type: 'graphite', server: 'g', port: 2003 });
  });

  test('destroy removes the declared server, leaves undeclared ones, and succeeds when already gone', async () => {
    fake().setMetricServer('by-hand', { type: 'graphite', server: 'h', port: 2003 });
    await run('apply', influx);
    const identity = { id: 'influx', type: 'influxdb' };
    expect((await run('destroy', identity)).code).toBe(0);
    expect(Object.keys(fake().metricServers())).toEqual(['by-hand']);
    const again = await run('destroy', identity);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/already absent/);
  });

  test('destroy leaves a section that another type now holds', async () => {
    fake().setMetricServer('influx', { type: 'graphite', server: 'g', port: 2003 });
    const kept = await run('destroy', { id: 'influx', type: 'influxdb' });
    expect(kept.stderr).toMatch(/now a graphite section that this stack did not declare; left alone/);
    expect(fake().metricServers().influx).toBeDefined();
  });

  test("an audit-only token can read, and its write fails with PVE's permission message", async () => {
    const auditEnv = { PROXMOX_VE_API_TOKEN: AUDITOR };
    expect((await run('read', influx, auditEnv)).code).toBe(0);
    const failed = await run('apply', influx, auditEnv);
    expect(failed.stderr.split('\n').at(-1)).toBe(
      'metric-server apply: PVE answered 403: Permission check failed (/, Sys.Modify); ' +
        'the token in PROXMOX_VE_API_TOKEN lacks that privilege; ' +
        `Endpoint: ${fake().url}; Request: POST /cluster/metrics/server/influx`,
    );
  });

  test("a refused token fails the read with PVE's message and names the variable, never the secret", async () => {
    const failed = await run('read', influx, { PROXMOX_VE_API_TOKEN: 'root@pam!homelab=wrong' });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(
      /PVE answered 401: Authentication failed!; the token in PROXMOX_VE_API_TOKEN was refused/,
    );
    expect(failed.stderr).not.toMatch(/wrong/);
  });

  test('a malformed or missing token fails before any request', async () => {
    expect((await run('read', influx, { PROXMOX_VE_API_TOKEN: 'secret-only' })).stderr).toMatch(
      /must look like USER@REALM!TOKENID=SECRET/,
    );
    expect((await run('read', influx, { PROXMOX_VE_API_TOKEN: '' })).stderr).toMatch(
      /environment variable PROXMOX_VE_API_TOKEN is not set/,
    );
    expect(fake().requests).toHaveLength(0);
  });

  test("a parameter error keeps PVE's message and the per-field errors", async () => {
    fake().failNext('POST', /metrics\/server/, 400, 'Parameter verification failed.', {
      port: 'value must have a maximum value of 65536',
    });
    const failed = await run('apply', influx);
    expect(failed.stderr).toMatch(
      /PVE answered 400: Parameter verification failed. \(port: value must have a maximum value of 65536\)/,
    );
  });

  // The headers come from the environment at apply, so only PVE judges their length (maxLength 1024).
  test('a PVE rejection the fake derives itself (a length check) reaches the user verbatim', async () => {
    const failed = await run('apply', otelHeaders, LONG_HEADERS);
    expect(failed.stderr).toContain(
      'PVE answered 400: Parameter verification failed. (otel-headers: value may only be 1024 characters long)',
    );
  });

  test('a spec carrying an option its type does not send is refused before anything reaches PVE', async () => {
    const failed = await run('apply', { ...influx, options: { path: 'graphite.only' } });
    expect(failed.stderr).toBe(
      'metric-server apply: Bad input: spec.options.path: ' +
        'must be left unset for a influxdb server (only graphite servers have it), got "graphite.only"',
    );
    expect(fake().requests).toEqual([]);
  });

  // PVE keeps " pve" as "pve" (status.cfg, SectionConfig.pm:1485 in pve-common f665029): the apply wrote it, read
  // "pve" back and failed "did not hold", and every plan drifted. Now the spec check refuses it before any request.
  test('a text option with outer whitespace is refused before anything reaches PVE', async () => {
    const failed = await run('apply', { ...influx, options: { ...influx.options, bucket: ' pve' } });
    expect(failed.stderr).toBe(
      'metric-server apply: Bad input: spec.options.bucket: must be a non-empty single-line string ' +
        'without leading or trailing whitespace, got " pve"',
    );
    expect(fake().requests).toEqual([]);
  });
});

describe('an older PVE without message bodies', () => {
  test('the reason phrase carries the error', async () => {
    await restart({ oldServer: true });
    const failed = await run('apply', otelHeaders, LONG_HEADERS);
    expect(failed.stderr).toContain(
      'PVE answered 400: Parameter verification failed. (otel-headers: value may only be 1024 characters long); ' +
        'Endpoint: ',
    );
  });
});
