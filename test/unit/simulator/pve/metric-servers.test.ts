// The fake's metric-server endpoints against reference/pve-api.md A1 and A6: both validation
// levels with PVE's texts, and the storage rules (write-only token, delete lists, digest).
import { startPveSimulator, type PveSimulator } from '../../../../src/simulator/pve/server';
import { call, type CallOptions } from '../../../fakes/pve/test-client';

const SERVER = '/cluster/metrics/server';
const GRAPHITE = { type: 'graphite', server: 'graphite.lan', port: '2003' };
const INFLUX = { type: 'influxdb', server: '10.0.0.5', port: '8086' };
const OTEL = { type: 'opentelemetry', server: 'otel.lan', port: '4318' };
const UPDATE = { server: 'graphite.lan', port: '2003' };
const MISSING = 'property is missing and it is not optional';
const UNKNOWN = 'property is not defined in schema and the schema does not allow additional properties';

let fake: PveSimulator;
const api = (method: string, id: string, options?: CallOptions) =>
  call(fake.url, method, id === '' ? SERVER : `${SERVER}/${id}`, options);

beforeEach(async () => {
  fake = await startPveSimulator();
  fake.setMetricServer('g1', { type: 'graphite', server: 'graphite.lan', port: 2003, mtu: 1500 });
  fake.setMetricServer('i1', { type: 'influxdb', server: '10.0.0.5', port: 8086, token: 'tok-1' });
});
afterEach(() => fake.stop());

describe('parameter verification (400)', () => {
  test.each<[string, string, string, Record<string, string>, Record<string, string>]>([
    ['server and port missing', 'POST', 'n1', { type: 'graphite' }, { server: MISSING, port: MISSING }],
    ['type missing', 'POST', 'n1', { server: 'h', port: '1' }, { type: MISSING }],
    ['an unknown parameter', 'POST', 'n1', { ...GRAPHITE, foo: '1' }, { foo: UNKNOWN }],
    ['type on PUT', 'PUT', 'g1', { ...UPDATE, type: 'graphite' }, { type: UNKNOWN }],
    [
      'a non-integer port',
      'POST',
      'n1',
      { ...GRAPHITE, port: 'x' },
      { port: "type check ('integer') failed - got 'x'" },
    ],
    ['port 0', 'POST', 'n1', { ...GRAPHITE, port: '0' }, { port: 'value must have a minimum value of 1' }],
    ['port 65537', 'PUT', 'g1', { ...UPDATE, port: '65537' }, { port: 'value must have a maximum value of 65536' }],
    ['mtu 100', 'POST', 'n1', { ...GRAPHITE, mtu: '100' }, { mtu: 'value must have a minimum value of 512' }],
    [
      'otel-timeout 11',
      'POST',
      'n1',
      { ...OTEL, 'otel-timeout': '11' },
      { 'otel-timeout': 'value must have a maximum value of 10' },
    ],
    [
      'proto icmp',
      'POST',
      'n1',
      { ...GRAPHITE, proto: 'icmp' },
      { proto: "value 'icmp' does not have a value in the enumeration 'udp, tcp'" },
    ],
    [
      'an unknown type',
      'POST',
      'n1',
      { ...GRAPHITE, type: 'prometheus' },
      { type: "value 'prometheus' does not have a value in the enumeration 'graphite, influxdb, opentelemetry'" },
    ],
    [
      'disable=true in a form',
      'POST',
      'n1',
      { ...GRAPHITE, disable: 'true' },
      { disable: "type check ('boolean') failed - got 'true'" },
    ],
    [
      'a bad address',
      'POST',
      'n1',
      { ...GRAPHITE, server: 'no such' },
      { server: 'invalid format - value does not look like a valid address: no such\n' },
    ],
    [
      'a bad graphite path',
      'POST',
      'n1',
      { ...GRAPHITE, path: 'a..b' },
      { path: 'invalid format - value does not look like a valid graphite path\n' },
    ],
    [
      'long otel-headers',
      'POST',
      'n1',
      { ...OTEL, 'otel-headers': 'x'.repeat(1025) },
      { 'otel-headers': 'value may only be 1024 characters long' },
    ],
    ['a bad id', 'POST', 'Bad!', GRAPHITE, { id: "invalid format - invalid configuration ID 'Bad!'\n" }],
    ['a one-letter id', 'GET', 'a', {}, { id: "invalid format - invalid configuration ID 'a'\n" }],
    [
      'a bad delete entry',
      'PUT',
      'g1',
      { ...UPDATE, delete: 'mtu,no!' },
      { delete: "invalid format - invalid configuration ID 'no!'\n" },
    ],
    [
      'a long digest',
      'PUT',
      'g1',
      { ...UPDATE, digest: 'f'.repeat(65) },
      { digest: 'value may only be 64 characters long' },
    ],
  ])('rejects %s', async (_, method, id, form, errors) => {
    const res = await api(method, id, { form });
    expect([res.status, res.reason]).toEqual([400, 'Parameter verification failed.']);
    expect(res.body).toEqual({ data: null, message: 'Parameter verification failed.\n', errors });
  });
});

describe('per-type checks and handler errors (500)', () => {
  test.each<[string, string, string, Record<string, string> | undefined, string]>([
    ['an otel option on graphite', 'POST', 'n1', { ...GRAPHITE, 'otel-path': '/x' }, "unexpected property 'otel-path'"],
    ['a graphite option on influxdb', 'POST', 'n1', { ...INFLUX, path: 'a.b' }, "unexpected property 'path'"],
    ['mtu on opentelemetry', 'POST', 'n1', { ...OTEL, mtu: '1500' }, "unexpected property 'mtu'"],
    [
      'an update with an option of another type',
      'PUT',
      'g1',
      { ...UPDATE, bucket: 'b' },
      "unexpected property 'bucket'",
    ],
    ['an existing id', 'POST', 'g1', GRAPHITE, "Metric server 'g1' already exists"],
    ['an update of an unknown id', 'PUT', 'zz', UPDATE, "no such server 'zz'"],
    ['a read of an unknown id', 'GET', 'zz', undefined, "status server entry 'zz' does not exist"],
    ['a delete of an unknown option', 'PUT', 'g1', { ...UPDATE, delete: 'nosuch' }, "no such option 'nosuch'"],
    ['a delete of type', 'PUT', 'g1', { ...UPDATE, delete: 'type' }, "no such option 'type'"],
    ['a delete of constructor', 'PUT', 'g1', { ...UPDATE, delete: 'constructor' }, "no such option 'constructor'"],
    ['a delete of server', 'PUT', 'g1', { ...UPDATE, delete: 'server' }, "unable to delete required option 'server'"],
    [
      'a delete of the influxdb port',
      'PUT',
      'i1',
      { ...UPDATE, delete: 'port' },
      "unable to delete required option 'port'",
    ],
    [
      'a delete of the graphite port, which PUT must send',
      'PUT',
      'g1',
      { ...UPDATE, delete: 'port' },
      "cannot set and delete property 'port' at the same time!",
    ],
    [
      'a set and delete of mtu',
      'PUT',
      'g1',
      { ...UPDATE, mtu: '1400', delete: 'mtu' },
      "cannot set and delete property 'mtu' at the same time!",
    ],
    ['a delete of token on graphite', 'PUT', 'g1', { ...UPDATE, delete: 'token' }, "no such option 'token'"],
    [
      'a stale digest',
      'PUT',
      'g1',
      { ...UPDATE, digest: '0'.repeat(40) },
      'detected modified configuration - file changed by other user? Try again.',
    ],
  ])('fails %s', async (_, method, id, form, message) => {
    const before = fake.metricServers();
    const res = await api(method, id, { form });
    expect([res.status, res.reason]).toEqual([500, message]);
    expect(res.body).toEqual({ data: null, message: `${message}\n` });
    expect(fake.metricServers()).toEqual(before);
  });

  test('answers a delete of an unknown id with the croak of lookup(undef)', async () => {
    const res = await api('DELETE', 'zz');
    expect(res.status).toBe(500);
    expect(res.body.message).toMatch(/^cannot lookup undefined type! at \S+MetricServer\.pm line \d+\.\n$/);
  });
});

describe('storage semantics', () => {
  test('reads back set keys plus type as numbers, never id, digest or token', async () => {
    const form = { ...INFLUX, token: 'secret-2', disable: '1', 'verify-certificate': '0' };
    await api('POST', 'i2', { form });
    const res = await api('GET', 'i2');
    const data = { type: 'influxdb', server: '10.0.0.5', port: 8086, disable: 1, 'verify-certificate': 0 };
    expect(res.body).toEqual({ data });
    expect(fake.metricServers().i2).not.toHaveProperty('token');
    expect(fake.metricTokens().i2).toBe('secret-2');
  });

  // The write goes through status.cfg: format_config_line writes "\t<key> <value>" (none for '') and
  // parse_config reads /^\s+(\S+)(\s+(.*\S))?\s*$/, so a value reads back without its outer whitespace and
  // one of whitespace alone is dropped. Source: [PC] f665029 src/PVE/SectionConfig.pm:1485, 1662.
  test('reads back text values as status.cfg holds them: outer whitespace gone, blank ones dropped', async () => {
    await api('POST', 'i2', { form: { ...INFLUX, bucket: ' lab metrics ', organization: '  ' } });
    expect((await api('GET', 'i2')).body.data).toEqual({ ...INFLUX, port: 8086, bucket: 'lab metrics' });
    await api('PUT', 'i2', { form: { server: '10.0.0.5', port: '8086', 'api-path-prefix': 'influx\t' } });
    expect((await api('GET', 'i2')).body.data).toMatchObject({ 'api-path-prefix': 'influx' });
  });

  test('lists id, disable (0 when unset), type, server and port, sorted by id', async () => {
    fake.setMetricServer('a0', { type: 'opentelemetry', server: 'otel.lan', disable: true });
    const res = await api('GET', '');
    expect(res.body.data).toEqual([
      { id: 'a0', disable: 1, type: 'opentelemetry', server: 'otel.lan', port: null },
      { id: 'g1', disable: 0, type: 'graphite', server: 'graphite.lan', port: 2003 },
      { id: 'i1', disable: 0, type: 'influxdb', server: '10.0.0.5', port: 8086 },
    ]);
  });

  test('keeps the write-only token apart: kept, overwritten, then removed', async () => {
    await api('PUT', 'i1', { form: { ...UPDATE, mtu: '1400' } });
    expect(fake.metricTokens()).toEqual({ i1: 'tok-1' });
    await api('PUT', 'i1', { form: { ...UPDATE, token: 'tok-2' } });
    expect(fake.metricTokens()).toEqual({ i1: 'tok-2' });
    await api('PUT', 'i1', { form: { ...UPDATE, delete: 'token' } });
    expect(fake.metricTokens()).toEqual({});
    const data = { type: 'influxdb', server: 'graphite.lan', port: 2003, mtu: 1400 };
    expect((await api('GET', 'i1')).body.data).toEqual(data);
  });

  test('drops a token sent for a type without one, as the base plugin hooks do', async () => {
    await api('POST', 'g2', { form: { ...GRAPHITE, token: 'ignored' } });
    expect(fake.metricTokens()).toEqual({ i1: 'tok-1' });
    expect(fake.metricServers().g2).toEqual({ type: 'graphite', server: 'graphite.lan', port: 2003 });
  });

  test('removes the token with the server', async () => {
    expect((await api('DELETE', 'i1')).body).toEqual({ data: null });
    expect([fake.metricServers().i1, fake.metricTokens()]).toEqual([undefined, {}]);
  });

  test('stores and returns otel-headers, which is not write-only in 9.2.11', async () => {
    const headers = Buffer.from('{"Authorization":"Bearer x"}').toString('base64');
    await api('POST', 'o1', { form: { ...OTEL, 'otel-headers': headers } });
    expect((await api('GET', 'o1')).body.data['otel-headers']).toBe(headers);
  });

  test('splits the delete list on commas, semicolons and whitespace', async () => {
    const section = { type: 'graphite', server: 'h1', port: 2003, mtu: 1500, timeout: 2, disable: 0 };
    fake.setMetricServer('g1', section);
    const res = await api('PUT', 'g1', { form: { ...UPDATE, delete: 'mtu; timeout disable' } });
    expect(res.status).toBe(200);
    expect(fake.metricServers().g1).toEqual({ type: 'graphite', server: 'graphite.lan', port: 2003 });
  });

  test('accepts the current digest and refuses it after an out-of-band edit', async () => {
    const digest = fake.digest();
    fake.deleteMetricServer('i1');
    expect((await api('PUT', 'g1', { form: { ...UPDATE, digest } })).status).toBe(500);
    expect((await api('PUT', 'g1', { form: { ...UPDATE, digest: fake.digest() } })).status).toBe(200);
  });

  test('accepts JSON bodies with true/false and numbers', async () => {
    const res = await api('POST', 'n1', { json: { ...GRAPHITE, port: 2004, disable: true } });
    expect(res.status).toBe(200);
    const stored = { type: 'graphite', server: 'graphite.lan', port: 2004, disable: 1 };
    expect(fake.metricServers().n1).toEqual(stored);
  });
});
