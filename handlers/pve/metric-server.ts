/**
 * The I/O shell of a metric server: read the section, write the form the pure diff asks for, and
 * read back, so an apply PVE accepted but did not honour fails instead of reporting success.
 */
import { HandlerError } from '../../src/core/errors';
import type { HandlerInput, Log, ObjectHandler } from '../../src/core/handler-cli';
import { readResult } from '../../src/core/protocol';
import { type Method, type Params, PveApiError } from '../../src/pve/client';
import { encodeBase64Json } from '../../src/pve/metric-fields';
import {
  createForm,
  diffMetricServer,
  type LiveSection,
  type MetricServerSecrets,
  type MetricServerSpec,
  summarize,
  updateForm,
} from '../../src/pve/metric-server';

/** The slice of `PveClient` this handler uses; tests may hand in their own. */
export interface PveApi {
  call<T>(method: Method, path: string, params?: Params): Promise<T>;
  close(): Promise<void>;
}

export const metricServerHandler = (
  connect: (target: Readonly<Record<string, unknown>>) => PveApi,
  env: NodeJS.ProcessEnv = process.env,
): ObjectHandler => {
  const withApi = async <T>(input: HandlerInput, work: (api: PveApi, spec: MetricServerSpec) => Promise<T>) => {
    const api = connect(input.target);
    try {
      return await work(api, input.object as unknown as MetricServerSpec);
    } finally {
      await api.close();
    }
  };

  return {
    read: (input) =>
      withApi(input, async (api, spec) => {
        const state = diffMetricServer(spec, await getSection(api, spec.id), readSecrets(spec, env));
        const changes = state.state === 'present' ? state.changes : {};
        const inSync = state.state === 'present' && Object.keys(changes).length === 0;
        return readResult(summarize(spec, state), changes, inSync);
      }),
    apply: (input, log) => withApi(input, (api, spec) => apply(api, spec, writeSecrets(spec, env), log)),
    destroy: (input, log) => withApi(input, (api, identity) => destroy(api, identity, log)),
  };
};

const apply = async (api: PveApi, spec: MetricServerSpec, secrets: MetricServerSecrets, log: Log) => {
  const path = sectionPath(spec.id);
  const live = await getSection(api, spec.id);
  const state = diffMetricServer(spec, live, secrets);
  if (state.state !== 'present' || live === undefined) {
    log(`metric server "${spec.id}": creating (${spec.type} ${spec.server}:${spec.port})`);
    await api.call('POST', path, createForm(spec, secrets)).catch((error: unknown) => {
      throw state.state === 'foreign' ? idTaken(spec, state.liveType, error) : error;
    });
  } else if (Object.keys(state.changes).length > 0 || secrets.token !== undefined) {
    const fields = Object.keys(state.changes);
    log(`metric server "${spec.id}": updating ${fields.length > 0 ? fields.join(', ') : 'the token'}`);
    await api.call('PUT', path, updateForm(spec, live, secrets));
  } else {
    log(`metric server "${spec.id}": in sync, nothing to write`);
    return;
  }
  const after = diffMetricServer(spec, await getSection(api, spec.id), secrets);
  if (after.state !== 'present' || Object.keys(after.changes).length > 0) {
    throw new HandlerError('PVE reported success but the write did not hold', summarize(spec, after));
  }
};

/** What names a server: all that destroy gets. */
type Identity = Pick<MetricServerSpec, 'id' | 'type'>;

const destroy = async (api: PveApi, identity: Identity, log: Log) => {
  const live = await getSection(api, identity.id);
  if (live === undefined) return log(`metric server "${identity.id}": already absent`);
  if (typeof live.type === 'string' && live.type !== identity.type) {
    return log(`metric server "${identity.id}": now a ${live.type} section that this stack did not declare; left alone`);
  }
  log(`metric server "${identity.id}": deleting`);
  await api.call('DELETE', sectionPath(identity.id));
};

const sectionPath = (id: string) => `cluster/metrics/server/${encodeURIComponent(id)}`;

/** The live section, or undefined when PVE says the id does not exist (a 500, per §A1). */
const getSection = async (api: PveApi, id: string): Promise<LiveSection | undefined> => {
  try {
    return await api.call<LiveSection>('GET', sectionPath(id));
  } catch (error) {
    if (error instanceof PveApiError && error.status === 500 && /does not exist/.test(error.pveMessage)) return undefined;
    throw error;
  }
};

const idTaken = (spec: MetricServerSpec, liveType: string, cause: unknown): HandlerError =>
  new HandlerError(
    `Metric server "${spec.id}" cannot be created`,
    `a ${liveType} section already holds this id and type is create-only; delete that section or choose another id (PVE: ${cause instanceof PveApiError ? cause.pveMessage : String(cause)})`,
  );

/** Secrets a read needs: only the otel headers, since they are compared (by value, never shown). */
const readSecrets = (spec: MetricServerSpec, env: NodeJS.ProcessEnv): MetricServerSecrets =>
  spec.otelHeadersEnv === undefined ? {} : { otelHeaders: otelHeaders(spec.otelHeadersEnv, env) };

/** Secrets a write sends: the token is sent on every apply, so a tokenVersion bump re-sends it. */
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
    throw new HandlerError('Bad OpenTelemetry headers', `${name} must hold a JSON object such as {"Authorization":"Bearer ..."} (the value is not shown)`);
  }
  return encodeBase64Json(headers);
};

const requiredEnv = (name: string, env: NodeJS.ProcessEnv, what: string): string => {
  const value = env[name];
  if (value === undefined || value === '') {
    throw new HandlerError(`${what} is missing`, `environment variable ${name} is not set; export it before running terraform`);
  }
  return value;
};
