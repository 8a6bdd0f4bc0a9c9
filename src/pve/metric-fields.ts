/**
 * Every metric-server option PVE knows (reference/pve-api.md §A1), which plugin sends it, and its
 * rule. One table drives synth-time validation, the diff and the write forms, so a field can never
 * be compared for a type that would refuse it ("unexpected property") and then drift forever.
 */
import { boolean, integer, oneOf, type Rule, stringRecord, text } from '../core/rules';

export const METRIC_SERVER_TYPES = ['graphite', 'influxdb', 'opentelemetry'] as const;
/** The metric server plugins PVE has. */
export type MetricServerType = (typeof METRIC_SERVER_TYPES)[number];

export type FieldKind =
  | { readonly kind: 'int'; readonly min: number; readonly max?: number }
  | { readonly kind: 'bool' }
  | { readonly kind: 'enum'; readonly values: readonly string[] }
  | { readonly kind: 'string'; readonly maxLength?: number; readonly pattern?: RegExp; readonly rule?: string }
  | { readonly kind: 'base64-json' };

/** One optional option: its PVE parameter, the construct prop that sets it, and its rule. */
export type FieldRule = FieldKind & {
  readonly param: string;
  readonly prop: string;
  readonly types: readonly MetricServerType[];
};

const SOCKET: readonly MetricServerType[] = ['graphite', 'influxdb'];
const ALL = METRIC_SERVER_TYPES;

export const OPTIONAL_FIELDS = [
  { param: 'disable', prop: 'disable', types: ALL, kind: 'bool' },
  { param: 'mtu', prop: 'mtu', types: SOCKET, kind: 'int', min: 512, max: 65536 },
  { param: 'timeout', prop: 'timeout', types: SOCKET, kind: 'int', min: 0 },
  {
    param: 'path',
    prop: 'path',
    types: ['graphite'],
    kind: 'string',
    pattern: /^[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)*$/,
    rule: 'dot-separated words of letters, digits and inner dashes',
  },
  { param: 'proto', prop: 'proto', types: ['graphite'], kind: 'enum', values: ['udp', 'tcp'] },
  {
    param: 'influxdbproto',
    prop: 'influxdbproto',
    types: ['influxdb'],
    kind: 'enum',
    values: ['udp', 'http', 'https'],
  },
  { param: 'organization', prop: 'organization', types: ['influxdb'], kind: 'string' },
  { param: 'bucket', prop: 'bucket', types: ['influxdb'], kind: 'string' },
  { param: 'api-path-prefix', prop: 'apiPathPrefix', types: ['influxdb'], kind: 'string' },
  { param: 'max-body-size', prop: 'maxBodySize', types: ['influxdb'], kind: 'int', min: 1 },
  { param: 'verify-certificate', prop: 'verifyCertificate', types: ['influxdb'], kind: 'bool' },
  { param: 'otel-protocol', prop: 'otelProtocol', types: ['opentelemetry'], kind: 'enum', values: ['http', 'https'] },
  { param: 'otel-path', prop: 'otelPath', types: ['opentelemetry'], kind: 'string' },
  { param: 'otel-timeout', prop: 'otelTimeout', types: ['opentelemetry'], kind: 'int', min: 1, max: 10 },
  { param: 'otel-verify-ssl', prop: 'otelVerifySsl', types: ['opentelemetry'], kind: 'bool' },
  { param: 'otel-max-body-size', prop: 'otelMaxBodySize', types: ['opentelemetry'], kind: 'int', min: 1024 },
  { param: 'otel-resource-attributes', prop: 'otelResourceAttributes', types: ['opentelemetry'], kind: 'base64-json' },
  {
    param: 'otel-compression',
    prop: 'otelCompression',
    types: ['opentelemetry'],
    kind: 'enum',
    values: ['none', 'gzip'],
  },
] as const satisfies readonly FieldRule[];

/** One optional field, with its prop's literal name, so constructs index their props without casts. */
export type OptionalField = (typeof OPTIONAL_FIELDS)[number];

/** The options `type` sends besides server and port, the secrets excluded. */
export const fieldsOf = (type: MetricServerType): readonly OptionalField[] =>
  OPTIONAL_FIELDS.filter((field) => (field.types as readonly MetricServerType[]).includes(type));

/** pve-configid: a letter, then letters, digits, `-` and `_` (case-insensitive). */
export const CONFIG_ID = /^[a-z][a-z0-9_-]+$/i;

/** The port PVE accepts. */
export const PORT_RANGE = { min: 1, max: 65536 } as const;

/** Base64 of a JSON object, the form PVE stores otel headers and resource attributes in. */
export const encodeBase64Json = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64');

/** The JSON object inside a base64 value, or undefined when it is not one. */
export const decodeBase64Json = (value: string): unknown => {
  try {
    return JSON.parse(Buffer.from(value, 'base64').toString('utf8'));
  } catch {
    return undefined;
  }
};

/** A field's rule over a prop's value (an object for base64-json fields). */
export const ruleOf = (field: FieldRule): Rule => {
  switch (field.kind) {
    case 'int':
      return integer(field.min, field.max);
    case 'bool':
      return boolean;
    case 'enum':
      return oneOf(field.values);
    case 'string':
      return text(field.rule, field.pattern, field.maxLength);
    case 'base64-json':
      return stringRecord;
  }
};

/** A field's rule over the spec's value: base64-json fields travel encoded. */
export const specRuleOf = (field: FieldRule): Rule => {
  if (field.kind !== 'base64-json') return ruleOf(field);
  return (value) =>
    typeof value === 'string' && stringRecord(decodeBase64Json(value)) === undefined
      ? undefined
      : 'the base64 of a JSON object of string values';
};
