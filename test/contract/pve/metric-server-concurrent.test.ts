/**
 * A hand edit that lands between a metric-server apply's read and its PUT. PVE gives no digest to
 * detect it (its GET never returns one, reference/pve-api.md §A1), so the PUT carries only what
 * that read showed differing: an edit of a field the stack does not change survives the write,
 * and the apply fails naming it instead of reporting success over it.
 */
import { pveDomain } from '../../../handlers/pve/domain';
import { invoke } from '../../support/run-handler';
import { useFakePveOverTls } from '../../support/fake-pve-tls';

const env = { PROXMOX_VE_API_TOKEN: 'root@pam!homelab=fake-secret-0000' };

const { fake, target } = useFakePveOverTls({
  'root@pam!homelab': { secret: 'fake-secret-0000', privileges: 'modify' },
});

const run = (verb: 'read' | 'apply', spec: object) => invoke(pveDomain(), 'metric-server', verb, target(), spec, env);

const declared = {
  id: 'graphite',
  type: 'graphite',
  server: '10.0.0.5',
  port: 2003,
  options: { mtu: 1500, path: 'proxmox' },
};
const moved = { ...declared, port: 2004 };

test.each([
  { field: 'mtu', how: 'declared and not changed by the stack', value: 1400 },
  { field: 'timeout', how: 'not declared by the stack', value: 3 },
])(
  'a hand edit of $field ($how) made after the apply read the server survives its PUT, and the apply names it',
  async ({ field, value }) => {
    expect((await run('apply', declared)).code).toBe(0);
    expect((await run('read', moved)).result?.summary).toBe(
      'metric server "graphite" differs: port is 2003, want 2004',
    );
    fake().beforeNext('PUT', /metrics\/server\/graphite$/, () =>
      fake().setMetricServer('graphite', { ...fake().metricServers().graphite, [field]: value }),
    );

    const applied = await run('apply', moved);

    const put = fake().requests.filter((request) => request.method === 'PUT');
    expect(put.map((request) => request.body)).toEqual([{ server: '10.0.0.5', port: '2004' }]);
    expect(fake().metricServers().graphite).toMatchObject({ port: 2004, [field]: value });
    expect(applied.code).toBe(1);
    expect(applied.stderr).toMatch(
      new RegExp(
        `^metric-server apply: Metric server "graphite" changed during this apply: ${field} is ${value}, `,
        'm',
      ),
    );
    expect((await run('read', moved)).result?.summary).toMatch(new RegExp(`differs: ${field} is ${value}, want`));
  },
);

test('a field the stack removes is deleted and one it sets is sent, and nothing else', async () => {
  expect((await run('apply', declared)).code).toBe(0);
  const changed = { ...declared, options: { mtu: 1400 } };
  expect((await run('apply', changed)).code).toBe(0);
  const put = fake().requests.filter((request) => request.method === 'PUT');
  expect(put.map((request) => request.body)).toEqual([
    { server: '10.0.0.5', port: '2003', mtu: '1400', delete: 'path' },
  ]);
  expect((await run('read', changed)).result?.in_sync).toBe('true');
});
