/**
 * A metric server's one declaration: every field with its doc, its rule, which plugins send it and where
 * the spec carries it (reference/pve-api.md §A1). The construct's props type, synth's prop table, the spec
 * the construct writes, the handler boundary's schema, the diff's option list and discover's rebuild all come
 * from `METRIC_SERVER_FIELDS`, so a field can never be compared for a type that would refuse it ("unexpected
 * property") and then drift forever, nor exist in one of them and not another (issue 29: it was written four
 * times).
 */
import { type FieldInput, optional, required } from '../core/fields';
import { optionsFor } from './option-field';
import { boolean, envName, integer, oneOf, type Rule, stringRecord, text } from '../core/rules';
import { isIpv6 } from './network-fields';

export const METRIC_SERVER_TYPES = ['graphite', 'influxdb', 'opentelemetry'] as const;
/** The metric server plugins PVE has. */
export type MetricServerType = (typeof METRIC_SERVER_TYPES)[number];

/** How PVE writes an option's value in a read: what the diff turns back into the spec's terms. */
export type LiveForm = 'bool' | 'int' | 'text' | 'base64-json';

const SOCKET = ['graphite', 'influxdb'] as const;
const ALL = METRIC_SERVER_TYPES;

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

/** An option only some types have (option-field.ts). */
const option = optionsFor<MetricServerType, LiveForm>();

/** PVE's maxLength of a base64 JSON option ([PM] 14a22df PVE/Status/OpenTelemetry.pm:44-49, 61-66). */
const BASE64_JSON_MAX = 1024;

/** An object of strings whose base64 JSON fits PVE's maxLength, which would answer 400 otherwise. */
const fittingRecord: Rule<Readonly<Record<string, string>>> = (value) =>
  stringRecord(value) === undefined && encodeBase64Json(value).length <= BASE64_JSON_MAX
    ? undefined
    : `an object of string values whose base64 JSON is at most ${BASE64_JSON_MAX} characters`;

/** An option PVE keeps as the base64 of a JSON object of strings, which the props hold as the object. */
const jsonOption = <const T extends readonly MetricServerType[]>(param: string, types: T) => ({
  ...option(param, types, fittingRecord, 'base64-json'),
  specForm: text('the base64 of a JSON object', /^[A-Za-z0-9+/]*={0,2}$/, BASE64_JSON_MAX),
  encode: encodeBase64Json,
  later: 'base64-json' as const,
  decode: (value: unknown) => (typeof value === 'string' ? (decodeBase64Json(value) ?? value) : value),
});

/**
 * A text option as status.cfg keeps it: PVE writes `\t<key> <value>` and reads it back with
 * `^\s+(\S+)(\s+(.*\S))?\s*$`, so outer whitespace is lost (and an empty or blank value dropped): such a value
 * would read back changed, drift on every plan and fail each apply's read-back.
 * Source: [PC] f665029 src/PVE/SectionConfig.pm:1485 (parse_config), 1662 (format_config_line).
 */
const cfgText = text(
  'a non-empty single-line string without leading or trailing whitespace',
  /^[^\s\0](?:[^\n\r\0]*[^\s\0])?$/,
);

/** pve-configid: a letter, then letters, digits, `-` and `_` (case-insensitive). */
export const CONFIG_ID = /^[a-z][a-z0-9_-]+$/i;

/** Dot-separated labels of letters, digits and inner dashes: PVE's DNS name and its graphite path alike. */
const PATH = /^[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)*$/;

/**
 * PVE's `address` format: an IP address or a DNS name (an IPv4 address is one of those labels too).
 * Source: [PC] f665029 src/PVE/JSONSchema.pm:675-685 (pve_verify_dns_name), 757-765 (pve_verify_address).
 */
const address: Rule<string> = (value) =>
  typeof value === 'string' && (PATH.test(value) || isIpv6(value)) ? undefined : 'an IP address or DNS name';

export const METRIC_SERVER_FIELDS = {
  /** The section id, a pve-configid (a letter, then letters, digits, `-`, `_`). Changing it replaces the server. */
  id: required({
    rule: text('a pve-configid (a letter, then letters, digits, - or _; at least 2 characters)', CONFIG_ID),
    spec: true,
    identity: true,
  }),
  /** The plugin. Create-only on PVE: changing it replaces the server. */
  type: required({ rule: oneOf(METRIC_SERVER_TYPES), spec: true, identity: true }),
  /** Address of the metrics target (IP or DNS name). */
  server: required({ rule: address, spec: true }),
  /** Port of the metrics target, 1 to 65536. */
  port: required({ rule: integer(1, 65536), spec: true }),
  /** Keep the section but stop sending. @default - unset (PVE sends) */
  disable: option('disable', ALL, boolean, 'bool'),
  /** graphite, influxdb: UDP MTU, 512 to 65536. @default - unset (PVE uses 1500) */
  mtu: option('mtu', SOCKET, integer(512, 65536), 'int'),
  /** graphite, influxdb: socket or HTTP timeout in seconds. @default - unset (PVE uses 1) */
  timeout: option('timeout', SOCKET, integer(0), 'int'),
  /** graphite: root path of the metrics, e.g. `proxmox.lab`. @default - unset (PVE uses "proxmox") */
  path: option('path', ['graphite'], text('dot-separated words of letters, digits and inner dashes', PATH), 'text'),
  /** graphite: transport. @default - unset (PVE uses "udp") */
  proto: option('proto', ['graphite'], oneOf(['udp', 'tcp']), 'text'),
  /** influxdb: transport; http and https use the v2 API. @default - unset (PVE uses "udp") */
  influxdbproto: option('influxdbproto', ['influxdb'], oneOf(['udp', 'http', 'https']), 'text'),
  /** influxdb (http/https): organization. @default - unset (PVE uses "proxmox") */
  organization: option('organization', ['influxdb'], cfgText, 'text'),
  /** influxdb (http/https): bucket. @default - unset (PVE uses "proxmox") */
  bucket: option('bucket', ['influxdb'], cfgText, 'text'),
  /** influxdb: API path prefix, for a proxy in front of InfluxDB. @default - unset */
  apiPathPrefix: option('api-path-prefix', ['influxdb'], cfgText, 'text'),
  /** influxdb: largest batch in bytes. @default - unset (PVE uses 25000000) */
  maxBodySize: option('max-body-size', ['influxdb'], integer(1), 'int'),
  /** influxdb: verify the target's certificate. @default - unset (PVE verifies) */
  verifyCertificate: option('verify-certificate', ['influxdb'], boolean, 'bool'),
  /**
   * influxdb: environment variable holding the InfluxDB token. The token is write-only on PVE, so
   * it is sent on every apply of this server and never compared; bump `tokenVersion` to rotate.
   *
   * @default - no token is managed
   */
  tokenEnv: optional({
    rule: envName,
    spec: true,
    types: ['influxdb'],
    secret: 'the InfluxDB token: write-only on PVE, never read; each apply of this server sends it',
  }),
  /**
   * influxdb: bump to re-send the token after changing it. Set, it adds a `<name>_resend` resource
   * whose creation applies this server alone (so the token is sent once more when it is first set).
   *
   * @default - unset: the token is sent whenever the server is applied
   */
  tokenVersion: optional({ rule: integer(0), types: ['influxdb'] }),
  /** opentelemetry: protocol to the collector. @default - unset (PVE uses "https") */
  otelProtocol: option('otel-protocol', ['opentelemetry'], oneOf(['http', 'https']), 'text'),
  /** opentelemetry: URL path. @default - unset (PVE uses "/v1/metrics") */
  otelPath: option('otel-path', ['opentelemetry'], cfgText, 'text'),
  /** opentelemetry: timeout in seconds, 1 to 10. @default - unset (PVE uses 5) */
  otelTimeout: option('otel-timeout', ['opentelemetry'], integer(1, 10), 'int'),
  /** opentelemetry: verify the collector's certificate. @default - unset (PVE verifies) */
  otelVerifySsl: option('otel-verify-ssl', ['opentelemetry'], boolean, 'bool'),
  /** opentelemetry: largest batch in bytes, at least 1024. @default - unset (PVE uses 10000000) */
  otelMaxBodySize: option('otel-max-body-size', ['opentelemetry'], integer(1024), 'int'),
  /**
   * opentelemetry: resource attributes added to every metric, at most 1024 characters as PVE's base64 JSON.
   *
   * @default - unset
   */
  otelResourceAttributes: jsonOption('otel-resource-attributes', ['opentelemetry']),
  /** opentelemetry: compression. @default - unset (PVE uses "gzip") */
  otelCompression: option('otel-compression', ['opentelemetry'], oneOf(['none', 'gzip']), 'text'),
  /**
   * opentelemetry: environment variable holding the request headers as a JSON object, e.g.
   * `{"Authorization":"Bearer ..."}`. Compared with the live value without ever printing either.
   *
   * @default - no headers
   */
  otelHeadersEnv: optional({
    rule: envName,
    spec: true,
    types: ['opentelemetry'],
    secret: 'the headers as JSON, as the cluster has them (never written here): the plan compares them',
  }),
};

/** One field of the declaration, by its prop name. */
type MetricFieldName = keyof typeof METRIC_SERVER_FIELDS;

/** An option PVE keeps under its own parameter: its prop, parameter, live form and the plugins that send it. */
export interface MetricOption {
  readonly prop: MetricFieldName;
  readonly param: string;
  readonly form: LiveForm;
  readonly types: readonly MetricServerType[];
}

/** Every option of the declaration, in its order. */
export const METRIC_OPTIONS: readonly MetricOption[] = Object.entries(METRIC_SERVER_FIELDS).flatMap(([prop, field]) =>
  'form' in field && typeof field.spec === 'object' && isFieldName(prop)
    ? [{ prop, param: field.spec.key, form: field.form, types: field.types }]
    : [],
);

function isFieldName(name: string): name is MetricFieldName {
  return Object.hasOwn(METRIC_SERVER_FIELDS, name);
}

/** The options `type` sends besides server and port, the secrets excluded. */
export const optionsOf = (type: MetricServerType): readonly MetricOption[] =>
  METRIC_OPTIONS.filter((field) => field.types.includes(type));

/** The plugins that have the field, when not every one does. */
export const typesOf = (prop: string): readonly MetricServerType[] | undefined => {
  if (!isFieldName(prop)) return undefined;
  const field: FieldInput & { readonly types?: readonly MetricServerType[] } = METRIC_SERVER_FIELDS[prop];
  return field.types;
};
