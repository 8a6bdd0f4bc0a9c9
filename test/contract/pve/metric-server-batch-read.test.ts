/**
 * The metric-servers' batch read against the fake PVE (reference/pve-api.md §A1): one list and one GET per
 * declared server that exists, a section PVE refuses to read marking that server alone, and an unreachable
 * cluster failing the whole read in one line. The handler's verbs one by one are metric-server.test.ts.
 */
import { pveDomain } from '../../../handlers/pve/domain';
import { invokeBatch } from '../../support/run-handler';
import { useFakePveOverTls } from '../../support/fake-pve-tls';
import { closedPort } from '../../support/pve-members';

const env = { PROXMOX_VE_API_TOKEN: 'root@pam!homelab=fake-secret-0000' };

const { fake, target } = useFakePveOverTls({
  'root@pam!homelab': { secret: 'fake-secret-0000', privileges: 'modify' },
});

describe('the batch read', () => {
  test('30 declared servers cost one list and one GET per declared server that exists, nothing else', async () => {
    for (let i = 0; i < 20; i++) fake().setMetricServer(`g${i}`, { type: 'graphite', server: '10.0.0.5', port: 2003 });
    fake().setMetricServer('undeclared', { type: 'graphite', server: '10.0.0.9', port: 2003 });
    fake().requests.length = 0;
    const objects = Object.fromEntries(
      Array.from({ length: 30 }, (_, i) => [
        `m${i}`,
        { kind: 'metric-server', spec: { id: `g${i}`, type: 'graphite', server: '10.0.0.5', port: 2003, options: {} } },
      ]),
    );
    const batch = await invokeBatch(pveDomain(), target(), objects, env);
    expect(batch.code).toBe(0);
    expect(
      fake()
        .requests.map((r) => `${r.method} ${r.path}`)
        .sort(),
    ).toEqual(
      [
        'GET /api2/json/cluster/metrics/server',
        ...Array.from({ length: 20 }, (_, i) => `GET /api2/json/cluster/metrics/server/g${i}`),
      ].sort(),
    );
    expect(batch.result?.['m0.in_sync']).toBe('true');
    expect(batch.result?.['m25.summary']).toBe('metric server "g25" is absent');
    expect(batch.result?.['.summary']).toMatch(
      /^10 of 30 objects are not in sync:\n- m20: metric server "g20" is absent\n/,
    );
  });

  test('a section PVE refuses to read marks that server alone; the others read normally', async () => {
    fake().setMetricServer('ok', { type: 'graphite', server: '10.0.0.5', port: 2003 });
    fake().setMetricServer('bad', { type: 'graphite', server: '10.0.0.5', port: 2003 });
    fake().failNext('GET', /server\/bad$/, 500, 'cfs lock timeout');
    const spec = (id: string) => ({
      kind: 'metric-server',
      spec: { id, type: 'graphite', server: '10.0.0.5', port: 2003, options: {} },
    });
    const batch = await invokeBatch(pveDomain(), target(), { ok: spec('ok'), bad: spec('bad') }, env);
    expect(batch.result?.['ok.in_sync']).toBe('true');
    expect(batch.result?.['bad.in_sync']).toBe('false');
    expect(batch.result?.['bad.summary']).toMatch(/^cannot be read: PVE answered 500: cfs lock timeout; Endpoint: /);
  });

  test('an unreachable cluster fails the whole read with one line naming the members', async () => {
    const spec = { kind: 'metric-server', spec: { id: 'x1', type: 'graphite', server: 'a', port: 1, options: {} } };
    const closed = await closedPort();
    const batch = await invokeBatch(
      pveDomain(),
      { endpoints: [closed], tokenEnv: 'PROXMOX_VE_API_TOKEN' },
      { x: spec },
      env,
    );
    expect(batch.code).toBe(1);
    expect(batch.stderr.split('\n')).toHaveLength(1);
    expect(batch.stderr).toMatch(
      new RegExp(
        /^batch read: No PVE cluster member reachable: /.source +
          /GET \/cluster\/metrics\/server reached none of 1 members: /.source +
          /https:\/\/127\.0\.0\.1:\d+ \(connect ECONNREFUSED/.source,
      ),
    );
  });
});
