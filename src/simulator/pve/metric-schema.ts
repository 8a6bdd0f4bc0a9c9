// The metric-server parameter tables: the union schemas checked first (400) and the per-type
// option lists checked next (500), so a client sees both levels exactly as PVE 9.2.11 splits them.
// Source: pve-api.md A1; [PC] SectionConfig.pm createSchema/updateSchema, [PM] PVE/Status/*.pm.
import type { ObjectSchema, PropSchema } from './validate';

export const METRIC_TYPES = ['graphite', 'influxdb', 'opentelemetry'] as const;
export type MetricType = (typeof METRIC_TYPES)[number];

const id: PropSchema = { type: 'string', format: 'pve-configid' };
const opt = (schema: PropSchema): PropSchema => ({ ...schema, optional: true });
const str = opt({ type: 'string' });
const bool = opt({ type: 'boolean' });

/** The plugin properties of every type, merged (SectionConfig's unified mode). */
const PLUGIN_PROPERTIES: ObjectSchema = {
  // server and port are required by the union although graphite and otel call port optional.
  server: { type: 'string', format: 'address' },
  port: { type: 'integer', minimum: 1, maximum: 65536 },
  disable: bool,
  mtu: opt({ type: 'integer', minimum: 512, maximum: 65536 }),
  timeout: opt({ type: 'integer', minimum: 0 }),
  path: opt({ type: 'string', format: 'graphite-path' }),
  proto: opt({ type: 'string', enum: ['udp', 'tcp'] }),
  influxdbproto: opt({ type: 'string', enum: ['udp', 'http', 'https'] }),
  organization: str,
  bucket: str,
  token: str,
  'api-path-prefix': str,
  'max-body-size': opt({ type: 'integer', minimum: 1 }),
  'verify-certificate': bool,
  'otel-protocol': opt({ type: 'string', enum: ['http', 'https'] }),
  'otel-path': str,
  'otel-timeout': opt({ type: 'integer', minimum: 1, maximum: 10 }),
  'otel-headers': opt({ type: 'string', maxLength: 1024 }),
  'otel-verify-ssl': bool,
  'otel-max-body-size': opt({ type: 'integer', minimum: 1024 }),
  'otel-resource-attributes': opt({ type: 'string', maxLength: 1024 }),
  'otel-compression': opt({ type: 'string', enum: ['none', 'gzip'] }),
};

/** GET and DELETE on `…/server/{id}` take the id alone. */
export const ID_SCHEMA: ObjectSchema = { id };

/** POST: the id, the create-only `type` (its enum rejects otel on PVE < 9) and the union. */
export const CREATE_SCHEMA: ObjectSchema = {
  id,
  type: { type: 'string', format: 'pve-configid', enum: [...METRIC_TYPES] },
  ...PLUGIN_PROPERTIES,
};

/** PUT: the union without `type`, plus `digest` and `delete`. */
export const UPDATE_SCHEMA: ObjectSchema = {
  id,
  ...PLUGIN_PROPERTIES,
  digest: opt({ type: 'string', maxLength: 64 }),
  delete: opt({ type: 'string', format: 'pve-configid-list', maxLength: 4096 }),
};

/** Endpoints without parameters (`additionalProperties => 0`, no properties). */
export const NO_PARAMS: ObjectSchema = {};

interface OptionRule {
  readonly optional: boolean;
}
const REQUIRED: OptionRule = { optional: false };
const OPTIONAL: OptionRule = { optional: true };
const optionals = (names: readonly string[]): Record<string, OptionRule> =>
  Object.fromEntries(names.map((name) => [name, OPTIONAL]));

/**
 * Each plugin's `options()`: which keys a section of that type may hold and which are required.
 * `type` is in none of them, so `delete=type` answers `no such option 'type'`.
 */
export const TYPE_OPTIONS: Readonly<Record<MetricType, Readonly<Record<string, OptionRule>>>> = {
  graphite: {
    server: REQUIRED,
    port: OPTIONAL,
    ...optionals(['disable', 'mtu', 'timeout', 'path', 'proto']),
  },
  influxdb: {
    server: REQUIRED,
    port: REQUIRED,
    ...optionals(['disable', 'mtu', 'timeout', 'influxdbproto', 'organization', 'bucket']),
    ...optionals(['token', 'api-path-prefix', 'max-body-size', 'verify-certificate']),
  },
  opentelemetry: {
    server: REQUIRED,
    port: OPTIONAL,
    ...optionals(['disable', 'otel-protocol', 'otel-path', 'otel-timeout', 'otel-headers']),
    ...optionals(['otel-verify-ssl', 'otel-max-body-size', 'otel-resource-attributes']),
    ...optionals(['otel-compression']),
  },
};

/** Only the InfluxDB plugin keeps a token (its on_add/on_update hooks); the others drop it. */
export const keepsToken = (type: string): boolean => type === 'influxdb';

export const isMetricType = (type: unknown): type is MetricType =>
  METRIC_TYPES.some((metricType) => metricType === type);
