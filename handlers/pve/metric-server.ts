/**
 * The I/O shell of a metric server. A batch lists the cluster's servers once and reads the
 * sections the stack declares; apply refuses a section that changed since its plan read it (metric-basis.ts),
 * writes the form the pure diff asks for and reads back, so a write PVE accepted but did not honour fails instead
 * of reporting success.
 */
import { HandlerError } from '../../src/core/errors';
import { defineKind, type KindContext, type Reading } from '../../src/core/kind';
import { describeDiff } from '../../src/core/protocol';
import { mapConcurrent } from '../../src/core/pool';
import type { PveApi } from '../../src/pve/api';
import { PveApiError } from '../../src/pve/client';
import { metricServerBasis, metricServerMoved } from '../../src/pve/metric-basis';
import { encodeBase64Json } from '../../src/pve/metric-fields';
import {
  createForm,
  diffMetricServer,
  type Form,
  type LiveSection,
  metricServerIdentity,
  metricServerSpec,
  type MetricServerIdentity,
  type MetricServerSecrets,
  type MetricServerSpec,
  type MetricServerState,
  summarize,
  unwritten,
  updateForm,
} from '../../src/pve/metric-server';
import { isTargetRefusal, targetRefusal } from '../../src/pve/metric-target';

/** Section GETs in flight at once: the list answers only id/type/server/port/disable (§A1). */
const PARALLEL_READS = 8;

/** Each declared id's section: present, absent (undefined), or the error reading it. */
type Sections = ReadonlyMap<string, LiveSection | undefined | Error>;

export const metricServerKind = defineKind({
  spec: metricServerSpec,
  identity: metricServerIdentity,

  async fetch(api: PveApi, specs: readonly MetricServerSpec[]): Promise<Sections> {
    const listed = await api.call<Array<{ id?: unknown }>>('GET', 'cluster/metrics/server');
    const present = new Set((Array.isArray(listed) ? listed : []).map((entry) => String(entry?.id)));
    const ids = [...new Set(specs.map((spec) => spec.id))];
    const read = (id: string) => (present.has(id) ? getSection(api, id).catch((error: Error) => error) : undefined);
    const sections = await mapConcurrent(ids, PARALLEL_READS, async (id) => read(id));
    return new Map(ids.map((id, index) => [id, sections[index]]));
  },

  read(spec: MetricServerSpec, sections: Sections, context: KindContext): Reading {
    const section = sections.get(spec.id);
    if (section instanceof Error) throw section;
    const secrets = readSecrets(spec, context.env);
    const state = diffMetricServer(spec, section, secrets);
    const diff = state.state === 'present' ? state.changes : {};
    return {
      inSync: state.state === 'present' && Object.keys(diff).length === 0,
      summary: summarize(spec, state),
      diff,
      basis: metricServerBasis(spec, section, secrets),
      // The id held by a section of another type: the create fails until it goes (its own, a type change, goes
      // first by its lifecycle's replacement; the read cannot tell whose it is).
      ...(state.state === 'foreign' ? { converges: false as const } : {}),
    };
  },

  /**
   * Only a section of the spec's type is this object: one of another type holding the id is one this object's
   * apply never writes (type is create-only: the create fails) and its destroy leaves, so a lifecycle created
   * over it records nothing found. A type change then keeps the server the stack's: the old lifecycle's
   * replacement deletes its own section, and the new one records it absent (README, Adoption).
   */
  exists: (spec: MetricServerSpec, sections: Sections): boolean => {
    const section = sections.get(spec.id);
    return (
      section !== undefined && !(section instanceof Error) && diffMetricServer(spec, section, {}).state !== 'foreign'
    );
  },

  apply: (api: PveApi, spec: MetricServerSpec, context: KindContext) =>
    apply(api, spec, writeSecrets(spec, context.env), context),
  destroy: (api: PveApi, identity: MetricServerIdentity, context: KindContext) => destroy(api, identity, context),
});

const apply = async (api: PveApi, spec: MetricServerSpec, secrets: MetricServerSecrets, context: KindContext) => {
  const { log, basis } = context;
  const path = sectionPath(spec.id);
  const live = await getSection(api, spec.id);
  // The plan showed the write its reading made: a section that reads otherwise now is refused (metric-basis.ts).
  const moved = basis === undefined ? undefined : metricServerMoved(spec, basis, live, secrets);
  if (moved !== undefined) throw moved;
  const state = diffMetricServer(spec, live, secrets);
  let form: Form;
  if (state.state !== 'present' || live === undefined) {
    log(`metric server "${spec.id}": creating (${spec.type} ${spec.server}:${spec.port})`);
    form = createForm(spec, secrets);
    await api.call('POST', path, form).catch((error: unknown) => {
      throw state.state === 'foreign' ? idTaken(spec, state.liveType, error) : refused(spec, 'create', error, form);
    });
  } else if (Object.keys(state.changes).length > 0 || secrets.token !== undefined) {
    const fields = Object.keys(state.changes);
    log(`metric server "${spec.id}": updating ${fields.length > 0 ? fields.join(', ') : 'the token'}`);
    form = updateForm(spec, state.changes, secrets);
    await api.call('PUT', path, form).catch((error: unknown) => {
      throw refused(spec, 'update', error, form);
    });
  } else {
    log(`metric server "${spec.id}": in sync, nothing to write`);
    return;
  }
  const after = diffMetricServer(spec, await getSection(api, spec.id), secrets);
  if (after.state !== 'present' || Object.keys(after.changes).length > 0) throw readBackError(spec, after, form);
};

/**
 * A read-back that differs: a write PVE did not honour, or fields someone edited after our read. No write can be
 * made conditional on that read: PUT takes a `digest` of the whole status.cfg, but no GET returns it, and DELETE
 * takes none. Source: pve-manager PVE/API2/Cluster/MetricServer.pm (14a22df) lines 139, 210-225, 272-279.
 */
const readBackError = (spec: MetricServerSpec, after: MetricServerState, form: Form): HandlerError => {
  const edited = after.state === 'present' ? unwritten(after.changes, form) : [];
  if (after.state !== 'present' || edited.length < Object.keys(after.changes).length) {
    return new HandlerError('PVE reported success but the write did not hold', summarize(spec, after));
  }
  return new HandlerError(
    `Metric server "${spec.id}" changed during this apply`,
    `${describeDiff(after.changes)}; this apply did not write ${edited.join(', ')}, which changed after its read ` +
      '(an edit at the same moment, kept: PVE gives no digest to refuse the write); ' +
      'apply again to put the declared values back, or declare the new ones',
  );
};

const destroy = async (api: PveApi, identity: MetricServerIdentity, { log }: KindContext) => {
  const live = await getSection(api, identity.id);
  if (live === undefined) return log(`metric server "${identity.id}": already absent`);
  if (typeof live.type === 'string' && live.type !== identity.type) {
    return log(
      `metric server "${identity.id}": now a ${live.type} section that this stack did not declare; left alone`,
    );
  }
  log(`metric server "${identity.id}": deleting`);
  await api.call('DELETE', sectionPath(identity.id));
};

const sectionPath = (id: string) => `cluster/metrics/server/${encodeURIComponent(id)}`;

/** The live section, or undefined when PVE says the id does not exist (a 500, per §A1). */
const getSection = async (api: PveApi, id: string): Promise<LiveSection | undefined> => {
  try {
    const section = await api.call<LiveSection | null>('GET', sectionPath(id));
    if (section === null || typeof section !== 'object') {
      throw new HandlerError('PVE answered without a section', `GET /${sectionPath(id)} returned no data`);
    }
    return section;
  } catch (error) {
    if (error instanceof PveApiError && error.status === 500 && /does not exist/.test(error.pveMessage))
      return undefined;
    throw error;
  }
};

/** PVE's refusal after its test of the target failed, saying what it left (metric-target.ts); any other error as is. */
const refused = (spec: MetricServerSpec, write: 'create' | 'update', error: unknown, form: Form): unknown => {
  if (!(error instanceof PveApiError) || !isTargetRefusal(error.status, error.pveMessage)) return error;
  const { title, detail } = targetRefusal(spec, write, error.pveMessage, form.token !== undefined);
  return new HandlerError(title, detail, { Endpoint: error.endpoint, Request: error.request });
};

const idTaken = (spec: MetricServerSpec, liveType: string, cause: unknown): HandlerError =>
  new HandlerError(
    `Metric server "${spec.id}" cannot be created`,
    `a ${liveType} section already holds this id and type is create-only; ` +
      'delete that section or choose another id ' +
      `(PVE: ${cause instanceof PveApiError ? cause.pveMessage : String(cause)})`,
  );

/** Secrets a read needs: only the otel headers, since they are compared (by value, never shown). */
const readSecrets = (spec: MetricServerSpec, env: NodeJS.ProcessEnv): MetricServerSecrets =>
  spec.otelHeadersEnv === undefined ? {} : { otelHeaders: otelHeaders(spec.otelHeadersEnv, env) };

/** Secrets a write sends: the token is sent on every apply (a tokenVersion bump runs one, see the construct). */
const writeSecrets = (spec: MetricServerSpec, env: NodeJS.ProcessEnv): MetricServerSecrets => ({
  ...readSecrets(spec, env),
  ...(spec.tokenEnv === undefined ? {} : { token: requiredEnv(spec.tokenEnv, env, 'the InfluxDB token') }),
});

const otelHeaders = (name: string, env: NodeJS.ProcessEnv): string => {
  const text = requiredEnv(name, env, 'the OpenTelemetry headers');
  let headers: unknown;
  try {
    headers = JSON.parse(text);
  } catch {
    headers = undefined;
  }
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) {
    throw new HandlerError(
      'Bad OpenTelemetry headers',
      `${name} must hold a JSON object such as {"Authorization":"Bearer ..."} (the value is not shown)`,
    );
  }
  return encodeBase64Json(headers);
};

const requiredEnv = (name: string, env: NodeJS.ProcessEnv, what: string): string => {
  const value = env[name];
  if (value === undefined || value === '') {
    throw new HandlerError(
      `${what} is missing`,
      `environment variable ${name} is not set; export it before running terraform`,
    );
  }
  return value;
};
