import { encodeBase64Json } from '../../../../src/pve/metric-fields';
import {
  createForm,
  diffMetricServer,
  type MetricServerSpec,
  summarize,
  unwritten,
  updateForm,
} from '../../../../src/pve/metric-server';

/** The changes a fresh read of `live` shows, as apply computes them before a PUT. */
const changesOf = (spec: MetricServerSpec, live: Record<string, unknown>) => {
  const state = diffMetricServer(spec, live, {});
  if (state.state !== 'present') throw new Error(`expected a present section, got ${state.state}`);
  return state.changes;
};

const influx: MetricServerSpec = {
  id: 'influx',
  type: 'influxdb',
  server: '10.0.0.5',
  port: 8089,
  options: { influxdbproto: 'https', bucket: 'pve', 'verify-certificate': false },
  tokenEnv: 'INFLUX_TOKEN',
};
const influxLive = {
  type: 'influxdb',
  server: '10.0.0.5',
  port: 8089,
  influxdbproto: 'https',
  bucket: 'pve',
  'verify-certificate': 0,
};

/** An opentelemetry server on c:4318, its options and headers' variable as given. */
const otelSpec = (fields: Pick<MetricServerSpec, 'options'> & Partial<MetricServerSpec>): MetricServerSpec => ({
  id: 'o',
  type: 'opentelemetry',
  server: 'c',
  port: 4318,
  ...fields,
});

/** The section PVE answers for that server, with `fields` set. */
const otelLive = (fields: Readonly<Record<string, unknown>>) => ({
  type: 'opentelemetry',
  server: 'c',
  port: 4318,
  ...fields,
});

describe('diffMetricServer', () => {
  test('a section matching the spec is in sync, whatever digest PVE adds', () => {
    const state = diffMetricServer(influx, { ...influxLive, digest: 'abc' }, {});
    expect(state).toEqual({ state: 'present', changes: {} });
    expect(summarize(influx, state)).toBe(
      'metric server "influx" is in sync; its token is not compared (PVE never returns it)',
    );
    const { tokenEnv: _none, ...tokenless } = influx;
    expect(summarize(tokenless, state)).toBe('metric server "influx" is in sync');
  });

  test('a missing id is absent', () => {
    expect(diffMetricServer(influx, undefined, {})).toEqual({ state: 'absent' });
  });

  test('a section of another type holding the id reads as absent, naming that type', () => {
    const state = diffMetricServer(influx, { type: 'graphite', server: 'x', port: 2003 }, {});
    expect(state).toEqual({ state: 'foreign', liveType: 'graphite' });
    expect(summarize(influx, state)).toMatch(/absent: the id is held by a graphite section/);
  });

  test('changed, missing and extra fields are each reported with live and wanted values', () => {
    const live = { ...influxLive, port: 8090, bucket: undefined, organization: 'old' };
    const state = diffMetricServer(influx, live, {});
    expect(state).toEqual({
      state: 'present',
      changes: {
        port: { live: 8090, want: 8089 },
        bucket: { live: null, want: 'pve' },
        organization: { live: 'old', want: null },
      },
    });
    expect(summarize(influx, state)).toBe(
      'metric server "influx" differs: port is 8090, want 8089; organization is "old", want unset; bucket is ' +
        'unset, want "pve"; its token is not compared (PVE never returns it)',
    );
  });

  test('booleans are compared as PVE stores them (0/1)', () => {
    const state = diffMetricServer(influx, { ...influxLive, 'verify-certificate': 1 }, {});
    expect(state).toEqual({ state: 'present', changes: { 'verify-certificate': { live: true, want: false } } });
  });

  test('fields another type sends are never compared', () => {
    const graphite: MetricServerSpec = { id: 'g', type: 'graphite', server: 'a', port: 2003, options: {} };
    const live = { type: 'graphite', server: 'a', port: 2003, bucket: 'ignored', 'otel-path': '/x' };
    expect(diffMetricServer(graphite, live, {})).toEqual({ state: 'present', changes: {} });
  });

  test('otel headers are compared by value and never shown', () => {
    const otel = otelSpec({ options: {}, otelHeadersEnv: 'H' });
    const live = otelLive({ 'otel-headers': encodeBase64Json({ Authorization: 'Bearer old' }) });
    const want = { otelHeaders: encodeBase64Json({ Authorization: 'Bearer new' }) };
    const state = diffMetricServer(otel, live, want);
    expect(state).toEqual({ state: 'present', changes: { 'otel-headers': { live: '<secret>', want: '<secret>' } } });
    expect(JSON.stringify(state)).not.toMatch(/Bearer|QmVhcmVy/);
    const same = { otelHeaders: encodeBase64Json({ Authorization: 'Bearer old' }) };
    expect(diffMetricServer(otel, live, same)).toEqual({ state: 'present', changes: {} });
  });

  test('resource attributes compare by JSON value, not by base64 text', () => {
    const otel = otelSpec({ options: { 'otel-resource-attributes': encodeBase64Json({ a: '1', b: '2' }) } });
    const live = otelLive({ 'otel-resource-attributes': encodeBase64Json({ b: '2', a: '1' }) });
    expect(diffMetricServer(otel, live, {})).toEqual({ state: 'present', changes: {} });
  });

  test('a live attribute named __proto__ is drift, not dropped from the comparison', () => {
    const otel = otelSpec({ options: { 'otel-resource-attributes': encodeBase64Json({ a: '1' }) } });
    // What the cluster holds, base64 of JSON text: JSON.parse makes `__proto__` an own key.
    const text = '{"a":"1","__proto__":{"team":"x"}}';
    const live = otelLive({ 'otel-resource-attributes': Buffer.from(text).toString('base64') });
    const state = diffMetricServer(otel, live, {});
    expect(state.state === 'present' && Object.keys(state.changes)).toEqual(['otel-resource-attributes']);
  });
});

describe('write forms', () => {
  test('create sends type, server, port, the options and the token, never the id', () => {
    expect(createForm(influx, { token: 't0k' })).toEqual({
      type: 'influxdb',
      server: '10.0.0.5',
      port: 8089,
      influxdbproto: 'https',
      bucket: 'pve',
      'verify-certificate': false,
      token: 't0k',
    });
  });

  test('update sends server and port every time, only the options that differ, and clears undeclared ones', () => {
    const live = { ...influxLive, bucket: 'old', organization: 'old', mtu: 1400, path: 'not-an-influx-field' };
    expect(updateForm(influx, changesOf(influx, live), {})).toEqual({
      server: '10.0.0.5',
      port: 8089,
      bucket: 'pve',
      delete: 'mtu,organization',
    });
  });

  test('update sends only server and port, and no delete, when nothing differs', () => {
    expect(updateForm(influx, changesOf(influx, influxLive), {})).toEqual({ server: '10.0.0.5', port: 8089 });
  });

  test('update sends the token whenever it is given, since it cannot be compared', () => {
    expect(updateForm(influx, {}, { token: 't0k' })).toEqual({ server: '10.0.0.5', port: 8089, token: 't0k' });
  });

  test('otel headers set live but no longer declared are deleted', () => {
    const otel: MetricServerSpec = { id: 'o', type: 'opentelemetry', server: 'c', port: 4318, options: {} };
    const live = { type: 'opentelemetry', server: 'c', port: 4318, 'otel-headers': 'e30=' };
    expect(updateForm(otel, changesOf(otel, live), {})).toMatchObject({ delete: 'otel-headers' });
  });

  test('a field still differing after a write is unwritten when the write neither sent nor deleted it', () => {
    const form = { server: 'a', port: 1, mtu: 1400, delete: 'path' };
    const after = { mtu: { live: 1, want: 1400 }, timeout: { live: 3, want: null }, path: { live: 'x', want: null } };
    expect(unwritten(after, form)).toEqual(['timeout']);
  });
});
