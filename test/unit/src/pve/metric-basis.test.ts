// Unit test of what a plan read of a metric server's section (metric-basis.ts): any field PVE answers changes the
// reading, its digest, token and a field order do not, and the otel headers count by a digest keyed by the declared
// ones, never by their text, so the basis (in the plan and the state) never holds a header.
import { metricServerBasis, metricServerMoved } from '../../../../src/pve/metric-basis';
import type { MetricServerSpec } from '../../../../src/pve/metric-server';

const section = { type: 'graphite', server: '10.0.0.5', port: 2003, mtu: 1500, path: 'proxmox' };
const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64');
const spec = { id: 'graphite', type: 'graphite' } as MetricServerSpec;
const planned = metricServerBasis(spec, section, {});

test.each([
  ['its fields in another order', { path: 'proxmox', mtu: 1500, port: 2003, server: '10.0.0.5', type: 'graphite' }],
  ['a digest key', { ...section, digest: 'abc' }],
])('a section read with %s reads as the plan read it', (_what, live) => {
  expect(metricServerBasis(spec, live, {})).toBe(planned);
});

test.each([
  ['a field the stack declares', { ...section, mtu: 1400 }],
  ['a field the stack does not declare', { ...section, timeout: 3 }],
  ['a field removed', { type: 'graphite', server: '10.0.0.5', port: 2003, mtu: 1500 }],
])('a section with %s changed reads otherwise, and the apply refuses it', (_what, live) => {
  expect(metricServerBasis(spec, live, {})).not.toBe(planned);
  expect(metricServerMoved(spec, planned, live, {})?.message).toMatch(
    /^Metric server "graphite" cannot be applied as planned: it was changed after the plan read it .* nothing was/,
  );
});

test('a section deleted or created after the plan is refused, saying which', () => {
  expect(metricServerMoved(spec, planned, undefined, {})?.message).toMatch(/it was deleted \(or its id taken by/);
  const absent = metricServerBasis(spec, undefined, {});
  expect(metricServerMoved(spec, absent, section, {})?.message).toMatch(/it was created after the plan read it absent/);
  expect(metricServerMoved(spec, absent, undefined, {})).toBeUndefined();
});

test('otel headers count by how they stand against the declared ones, or by being set when none are declared', () => {
  const one = b64({ Authorization: 'Bearer one' });
  const two = b64({ Authorization: 'Bearer two' });
  const otel = { ...spec, type: 'opentelemetry' } as MetricServerSpec;
  const live = { ...section, type: 'opentelemetry', 'otel-headers': one };
  const basis = metricServerBasis(otel, live, { otelHeaders: one });
  expect(basis).toMatch(/^section read [0-9a-f]{16}$/);
  expect(metricServerBasis(otel, { ...live, 'otel-headers': two }, { otelHeaders: one })).not.toBe(basis);
  expect(metricServerBasis(otel, live, { otelHeaders: two })).not.toBe(basis);
  // None declared: the apply clears whatever is set, so what they hold does not count.
  expect(metricServerBasis(otel, live, {})).toBe(metricServerBasis(otel, { ...live, 'otel-headers': two }, {}));
  expect(metricServerBasis(otel, live, {})).not.toBe(
    metricServerBasis(otel, { ...live, 'otel-headers': undefined }, {}),
  );
});

// Regression: a type change failed its apply, since its lifecycle's replacement deletes the stack's own section of
// the type before (as the plan says) ahead of the create; a section of another type is not the object, and reads
// as absent, as the diff reads it.
test('a section of another type reads as absent: the create fails while it holds the id, or follows its end', () => {
  const other = { ...section, type: 'influxdb' };
  expect(metricServerBasis(spec, other, {})).toBe(metricServerBasis(spec, undefined, {}));
  expect(metricServerMoved(spec, metricServerBasis(spec, other, {}), undefined, {})).toBeUndefined();
  expect(metricServerMoved(spec, metricServerBasis(spec, other, {}), section, {})?.message).toMatch(
    /it was created after the plan read it absent/,
  );
});

// A reading derived from the headers' text (an HMAC keyed by the declared headers) let whoever reads the state test
// a guessed token offline whenever the live headers are the declared ones.
test('no reading depends on what the otel headers hold: two secrets the cluster holds as declared read alike', () => {
  const otel = { ...spec, type: 'opentelemetry' } as MetricServerSpec;
  const withHeaders = (headers: string) =>
    metricServerBasis(otel, { ...section, type: 'opentelemetry', 'otel-headers': headers }, { otelHeaders: headers });
  expect(withHeaders(b64({ Authorization: 'Bearer one' }))).toBe(withHeaders(b64({ Authorization: 'Bearer two' })));
});
