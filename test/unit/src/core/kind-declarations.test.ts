/**
 * Issue 29 item 1: a kind is one declaration, and every form derived from it has every field. For each
 * declared kind: the construct's props table in API.md, the spec the construct writes (specOf), the handler
 * boundary's schema, the diff and discover's rebuild each carry every field the declaration has, and
 * nothing else. A field added to the declaration but dropped by one form (or a form that grew a field of
 * its own) fails here by name.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pveDeclarations } from '../../../../src/discover/pve';
import { type Fields, propsOfSpec, specOf } from '../../../../src/core/fields';
import { parseAs } from '../../../../src/core/parse';
import {
  encodeBase64Json,
  METRIC_SERVER_FIELDS,
  METRIC_SERVER_TYPES,
  optionsOf,
} from '../../../../src/pve/metric-fields';
import { diffMetricServer, metricServerSpec } from '../../../../src/pve/metric-server';

const ROOT = join(__dirname, '..', '..', '..', '..');

/** The props API.md lists for `props`, by name. */
const documentedProps = (props: string): string[] => {
  const api = readFileSync(join(ROOT, 'API.md'), 'utf8');
  const section = api.split(`## ${props}\n`)[1]?.split('\n## ')[0] ?? '';
  return [...section.matchAll(/^\| `(\w+)` \|/gm)].map((match) => match[1] ?? '');
};

/** Props the construct adds to its kind's fields: the target and what every managed object has. */
const CONSTRUCT_PROPS = ['cluster', 'retired', 'forget', 'adopt'];

/** A value for every field of a metric server of `type`, each set to something its rule lets through. */
const everyField = (type: (typeof METRIC_SERVER_TYPES)[number]): Record<string, unknown> => {
  const sample: Record<string, unknown> = { id: 'm1', type, server: 'metrics.lan', port: 2003 };
  const values: Record<string, unknown> = {
    disable: true,
    mtu: 1400,
    timeout: 3,
    path: 'lab.pve',
    proto: 'tcp',
    influxdbproto: 'https',
    organization: 'org',
    bucket: 'b',
    apiPathPrefix: '/p',
    maxBodySize: 1000,
    verifyCertificate: false,
    otelProtocol: 'http',
    otelPath: '/v1/m',
    otelTimeout: 4,
    otelVerifySsl: false,
    otelMaxBodySize: 2048,
    otelResourceAttributes: { site: 'lab' },
    otelCompression: 'none',
  };
  for (const option of optionsOf(type)) sample[option.prop] = values[option.prop];
  if (type === 'influxdb') Object.assign(sample, { tokenEnv: 'INFLUX_TOKEN', tokenVersion: 1 });
  if (type === 'opentelemetry') sample.otelHeadersEnv = 'OTEL_HEADERS';
  return sample;
};

const specFields = (fields: Fields) => Object.keys(fields).filter((prop) => fields[prop]?.spec !== undefined);

describe('the metric server is one declaration', () => {
  test("API.md's ProxmoxMetricServerProps lists every declared field and the construct's own props, no other", () => {
    expect(documentedProps('ProxmoxMetricServerProps').sort()).toEqual(
      [...Object.keys(METRIC_SERVER_FIELDS), ...CONSTRUCT_PROPS].sort(),
    );
  });

  test.each(METRIC_SERVER_TYPES)(
    'a %s server: the spec carries every field it has, and discover reads each back',
    (type) => {
      const props = everyField(type);
      const spec = parseAs(metricServerSpec, specOf(METRIC_SERVER_FIELDS, props), 'spec');
      const carried = specFields(METRIC_SERVER_FIELDS).filter((prop) => props[prop] !== undefined);
      expect(Object.keys(propsOfSpec(METRIC_SERVER_FIELDS, spec).props).sort()).toEqual(carried.sort());
      expect(propsOfSpec(METRIC_SERVER_FIELDS, spec).props).toEqual(
        Object.fromEntries(carried.map((prop) => [prop, props[prop]])),
      );
    },
  );

  test.each(METRIC_SERVER_TYPES)('a %s server: the diff compares every option the type sends', (type) => {
    const spec = parseAs(metricServerSpec, specOf(METRIC_SERVER_FIELDS, everyField(type)), 'spec');
    const section = { type, server: spec.server, port: spec.port, ...spec.options };
    for (const option of optionsOf(type)) {
      const changed = diffMetricServer(spec, { ...section, [option.param]: undefined }, {});
      expect(changed.state === 'present' ? Object.keys(changed.changes) : changed).toEqual([option.param]);
    }
  });

  test.each(METRIC_SERVER_TYPES)('a %s server: discover declares every field the live section has', (type) => {
    const spec = parseAs(metricServerSpec, specOf(METRIC_SERVER_FIELDS, everyField(type)), 'spec');
    const headers = type === 'opentelemetry' ? { 'otel-headers': encodeBase64Json({ a: 'b' }) } : {};
    const section = { id: spec.id, type, server: spec.server, port: spec.port, ...spec.options, ...headers };
    const found = pveDeclarations({ cluster: {}, metricServers: [section] }, new Set()).declarations;
    const server = found.find((declaration) => declaration.construct === 'ProxmoxMetricServer');
    const expected = specFields(METRIC_SERVER_FIELDS).filter((prop) => everyField(type)[prop] !== undefined);
    expect(
      Object.keys(server?.props ?? {})
        .filter((prop) => !CONSTRUCT_PROPS.includes(prop))
        .sort(),
    ).toEqual(expected.sort());
  });

  test('the boundary refuses a spec path no field declares', () => {
    const spec = { ...specOf(METRIC_SERVER_FIELDS, everyField('graphite')), extra: 1 };
    expect(() => parseAs(metricServerSpec, spec, 'spec')).toThrow('spec.extra: is not a field of a metric server spec');
    const option = { ...spec, extra: undefined, options: { 'no-such': 1 } };
    expect(() => parseAs(metricServerSpec, option, 'spec')).toThrow('spec.options.no-such: is not a field');
  });
});
