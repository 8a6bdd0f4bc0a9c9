/**
 * Two constructs naming one object on one target are refused at synth, naming both (issue 29 item 4): two
 * metric servers with one id on a cluster planned `1 to add, 1 to destroy` on every run. One id on two
 * clusters, and one name in two name spaces, are two objects.
 */
import { Testing, TerraformStack } from 'cdktf';
import { ProxmoxCluster } from '../../../../constructs/pve/cluster';
import { ProxmoxMetricServer } from '../../../../constructs/pve/metric-server';

const server = { type: 'graphite', server: '10.0.0.5', port: 2003 } as const;

describe('one object, one construct', () => {
  test('a second metric server with one id on a cluster is refused, naming both constructs', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const cluster = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] });
    new ProxmoxMetricServer(stack, 'first', { cluster, id: 'graphite1', ...server });
    const second = () => new ProxmoxMetricServer(stack, 'second', { cluster, id: 'graphite1', ...server, port: 2004 });
    expect(second).toThrow(
      'test/second: id must be unique among the metric servers of test/pve (test/first declares it too), ' +
        'got "graphite1"',
    );
    // Retiring one while another declares it would delete what the other creates: refused the same.
    expect(
      () => new ProxmoxMetricServer(stack, 'third', { cluster, id: 'graphite1', ...server, retired: true }),
    ).toThrow(/test\/third: id must be unique .*test\/first declares it too/);
  });

  test('one id on two clusters is two servers', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    for (const name of ['a', 'b']) {
      const cluster = new ProxmoxCluster(stack, name, { endpoints: [`https://${name}:8006`] });
      new ProxmoxMetricServer(stack, `m-${name}`, { cluster, id: 'graphite1', ...server });
    }
    expect(() => Testing.synth(stack)).not.toThrow();
  });
});
