/**
 * The batch read's `.converges`, which decides whether the drift warning promises convergence, is computed from the
 * readings' own flag (Reading.converges), set where a kind decides the apply will refuse or leave what it names, never
 * from the words of their lines: a refusal worded otherwise got the promising footer (a lie).
 */
import { readBatch } from '../../../../src/core/batch';
import { systemClock } from '../../../../src/core/clock';
import type { PveApi } from '../../../../src/pve/api';
import { pveDomain } from '../../../../handlers/pve/domain';
import { widgetDomain, type WidgetWorld } from './fake-domain';

const context = { env: {}, log: () => undefined, clock: systemClock };

/** A PVE API of one metric server section, `influx`, of type `type`. */
const metricsApi = (type: string): PveApi => ({
  call: async <T>(_method: string, path: string): Promise<T> => {
    if (path === 'cluster/metrics/server') return [{ id: 'influx', type }] as T;
    if (path === 'cluster/metrics/server/influx') return { id: 'influx', type, server: '10.0.0.9', port: 8089 } as T;
    throw new Error(`unexpected GET ${path}`);
  },
  envelope: async () => {
    throw new Error('no envelope');
  },
  close: async () => undefined,
});

const pveQuery = {
  '.target': JSON.stringify({ endpoints: ['https://n1:8006'], insecure: true }),
  influx: JSON.stringify({
    kind: 'metric-server',
    spec: { id: 'influx', type: 'influxdb', server: '10.0.0.9', port: 8089, options: {} },
  }),
};

describe('.converges', () => {
  // Its line said "apply will fail until that section is removed", under "(read at plan time; apply converges it)".
  test('is "false" for a metric server whose id a section of another type holds', async () => {
    const result = await readBatch(
      pveDomain(() => metricsApi('graphite')),
      pveQuery,
      context,
    );
    expect(result['influx.summary']).toMatch(/held by a graphite section, and type is create-only/);
    expect(result['.converges']).toBe('false');
  });

  test('is "true" for a metric server of its type that differs', async () => {
    const api = metricsApi('influxdb');
    const drifted = {
      ...pveQuery,
      influx: pveQuery.influx.replace('8089', '9999'),
    };
    const result = await readBatch(
      pveDomain(() => api),
      drifted,
      context,
    );
    expect(result['influx.summary']).toMatch(/differs: port is 8089, want 9999/);
    expect(result['.converges']).toBe('true');
  });

  test('is "false" for an object the plan could not read, whatever its error says', async () => {
    const world: WidgetWorld = { live: new Map(), calls: [] };
    const result = await readBatch(
      widgetDomain(world),
      { '.target': '{"shelf":"a"}', broken: JSON.stringify({ kind: 'widget', spec: { id: 'broken', size: 1 } }) },
      context,
    );
    expect(result['.converges']).toBe('false');
  });
});
