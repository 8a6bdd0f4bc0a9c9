/**
 * A metric server, whole: its props table and rules (judged at synth and again at the handler
 * boundary), its spec and identity, and the pure diff of what the live section says against the
 * spec with the form that closes the gap. Only the fields the type sends are compared, an
 * undeclared option is cleared with `delete=`, `digest` is never compared, and secrets are never
 * echoed.
 */
import * as z from 'zod/mini';
import { canonicalJson } from '../core/canonical';
import { identitySchema, specSchema } from '../core/fields';
import { describeDiff, type FieldDiff } from '../core/protocol';
import { broken, type Problem } from '../core/rules';
import {
  decodeBase64Json,
  type LiveForm,
  METRIC_SERVER_FIELDS,
  METRIC_SERVER_TYPES,
  type MetricOption,
  optionsOf,
  typesOf,
} from './metric-fields';

const otherType = (type: string, types: readonly string[]) =>
  `left unset for a ${type} server (only ${types.join(', ')} servers have it)`;

/**
 * The rules across fields, over props or a spec's props alike: a field the type does not have, a
 * tokenVersion alone. Each field says which plugins have it (metric-fields.ts), so the rule is stated once.
 */
export const metricServerRules = (props: Readonly<Record<string, unknown>>): Problem[] => {
  const type = METRIC_SERVER_TYPES.find((known) => known === props.type);
  if (type === undefined) return [];
  const problems: Problem[] = [];
  for (const [prop, value] of Object.entries(props)) {
    const types = typesOf(prop);
    if (value !== undefined && types !== undefined && !types.includes(type)) {
      problems.push(broken(prop, otherType(type, types), value));
    }
  }
  if (props.tokenVersion !== undefined && props.tokenEnv === undefined) {
    problems.push(broken('tokenVersion', 'set only together with tokenEnv', props.tokenVersion));
  }
  return problems;
};

/** The spec a `ProxmoxMetricServer` synthesizes: PVE parameter names in `options`, no secret values. */
export const metricServerSpec = specSchema(METRIC_SERVER_FIELDS, 'a metric server spec', metricServerRules);

export type MetricServerSpec = z.infer<typeof metricServerSpec>;

/** What names a server: all that destroy gets. */
export const metricServerIdentity = identitySchema(METRIC_SERVER_FIELDS, 'a metric server identity');
export type MetricServerIdentity = z.infer<typeof metricServerIdentity>;

/** What the secrets resolve to at run time; never stored, never printed. */
export interface MetricServerSecrets {
  readonly token?: string;
  /** Base64 of the headers JSON, as PVE stores it. */
  readonly otelHeaders?: string;
}

export type LiveSection = Readonly<Record<string, unknown>>;

/** present: compare; absent: create; foreign: another type holds the id (create will fail). */
export type MetricServerState =
  | { readonly state: 'absent' }
  | { readonly state: 'foreign'; readonly liveType: string }
  | { readonly state: 'present'; readonly changes: FieldDiff };

const HIDDEN = '<secret>';

/** The type of a live section that is not the spec's: the section is not this object (type is create-only). */
export const otherTypeOf = (spec: MetricServerSpec, live: LiveSection): string | undefined => {
  const liveType = typeof live.type === 'string' ? live.type : '';
  return liveType !== '' && liveType !== spec.type ? liveType : undefined;
};

/** Compares a live section (undefined when the id is unknown) with the spec. */
export const diffMetricServer = (
  spec: MetricServerSpec,
  live: LiveSection | undefined,
  secrets: MetricServerSecrets,
): MetricServerState => {
  if (live === undefined) return { state: 'absent' };
  const liveType = otherTypeOf(spec, live);
  if (liveType !== undefined) return { state: 'foreign', liveType };
  const changes: Record<string, { live: unknown; want: unknown }> = {};
  const compare = (param: string, have: unknown, want: unknown) => {
    if (canonicalJson(have) !== canonicalJson(want)) changes[param] = { live: have, want };
  };
  compare('server', live.server ?? null, spec.server);
  compare('port', asInt(live.port) ?? null, spec.port);
  for (const field of optionsOf(spec.type)) {
    compare(field.param, liveValue(field.form, live[field.param]), comparable(field, spec.options[field.param]));
  }
  if (spec.type === 'opentelemetry') {
    const have = liveValue('base64-json', live['otel-headers']);
    const want = secrets.otelHeaders === undefined ? null : decodeBase64Json(secrets.otelHeaders);
    if (canonicalJson(have) !== canonicalJson(want)) {
      changes['otel-headers'] = { live: have === null ? null : HIDDEN, want: want === null ? null : HIDDEN };
    }
  }
  return { state: 'present', changes };
};

/** A live value in the spec's terms; null when unset. */
export const liveValue = (form: LiveForm, value: unknown): unknown => {
  if (value === undefined || value === null || value === '') return null;
  if (form === 'bool') return value === 1 || value === '1' || value === true;
  if (form === 'int') return asInt(value) ?? value;
  if (form === 'base64-json') return typeof value === 'string' ? (decodeBase64Json(value) ?? value) : value;
  return String(value);
};

const comparable = (field: MetricOption, value: unknown): unknown => {
  if (value === undefined) return null;
  return field.form === 'base64-json' && typeof value === 'string' ? decodeBase64Json(value) : value;
};

const asInt = (value: unknown): number | undefined => {
  const number = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
  return typeof number === 'number' && Number.isInteger(number) ? number : undefined;
};

/** The one-line summary a plan shows. */
export const summarize = (spec: MetricServerSpec, state: MetricServerState): string => {
  const name = `metric server "${spec.id}"`;
  if (state.state === 'absent') return `${name} is absent`;
  if (state.state === 'foreign') {
    return (
      `${name} is absent: the id is held by a ${state.liveType} section, and type is create-only, ` +
      'so apply will fail until that section is removed or the id changed ' +
      "(this stack's own section of the type before is removed first, by its lifecycle's replacement)"
    );
  }
  const changed = describeDiff(state.changes);
  const said = changed === '' ? `${name} is in sync` : `${name} differs: ${changed}`;
  return spec.tokenEnv === undefined ? said : `${said}; ${TOKEN_UNCOMPARED}`;
};

/** Reasoned: PVE never returns the token, so a plan saying "in sync" must not read as having checked it. */
const TOKEN_UNCOMPARED = 'its token is not compared (PVE never returns it)';

export type Form = Record<string, string | number | boolean>;

/** POST body: type, every declared option and the secrets; `id` is the path, so never sent. */
export const createForm = (spec: MetricServerSpec, secrets: MetricServerSecrets): Form => ({
  type: spec.type,
  ...writeForm(spec, secrets),
});

/**
 * PUT body: server and port (PVE requires them on every write), then only what `changes` (from a
 * read made just before) says differs: a declared value sent, an option the stack does not declare
 * cleared with `delete=`. A field edited by hand after that read is left as it is; see `unwritten`.
 */
export const updateForm = (spec: MetricServerSpec, changes: FieldDiff, secrets: MetricServerSecrets): Form => {
  const form: Form = { server: spec.server, port: spec.port };
  const cleared: string[] = [];
  for (const param of Object.keys(changes)) {
    if (param === 'server' || param === 'port') continue;
    const value = param === 'otel-headers' ? secrets.otelHeaders : spec.options[param];
    if (value === undefined) cleared.push(param);
    else form[param] = value;
  }
  if (secrets.token !== undefined) form.token = secrets.token;
  return cleared.length === 0 ? form : { ...form, delete: cleared.join(',') };
};

/** The fields still differing after a write that the write did not touch: someone changed them meanwhile. */
export const unwritten = (after: FieldDiff, form: Form): string[] => {
  const sent = new Set([...Object.keys(form), ...String(form.delete ?? '').split(',')]);
  return Object.keys(after).filter((param) => !sent.has(param));
};

const writeForm = (spec: MetricServerSpec, secrets: MetricServerSecrets): Form => {
  const form: Form = { server: spec.server, port: spec.port, ...spec.options };
  if (secrets.token !== undefined) form.token = secrets.token;
  if (secrets.otelHeaders !== undefined) form['otel-headers'] = secrets.otelHeaders;
  return form;
};
