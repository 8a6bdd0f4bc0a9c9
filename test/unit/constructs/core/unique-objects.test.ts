/**
 * Two constructs naming one object on one target are refused at synth, naming both (issue 29 item 4): two
 * metric servers with one id on a cluster planned `1 to add, 1 to destroy` on every run. One id on two
 * clusters, and one name in two name spaces, are two objects.
 */
import { Testing, TerraformStack } from 'cdktf';
import { KubeCluster } from '../../../../constructs/kube/cluster';
import { KubeRepo } from '../../../../constructs/kube/kube-repo';
import { SystemdDropIn } from '../../../../constructs/linux/systemd-drop-in';
import { SystemdUnitInstance } from '../../../../constructs/linux/systemd-instance';
import { SystemdUnit } from '../../../../constructs/linux/systemd-unit';
import { ProxmoxCluster } from '../../../../constructs/pve/cluster';
import { ProxmoxMetricServer } from '../../../../constructs/pve/metric-server';
import { hostIn } from '../linux/on-host';

const server = { type: 'graphite', server: '10.0.0.5', port: 2003 } as const;

describe('one object, one construct', () => {
  test('a second metric server with one id on a cluster is refused, naming both constructs', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const cluster = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] });
    new ProxmoxMetricServer(stack, 'first', { cluster, id: 'graphite1', ...server });
    new ProxmoxMetricServer(stack, 'second', { cluster, id: 'graphite1', ...server, port: 2004 });
    // Retiring one while another declares it would delete what the other creates: refused the same.
    new ProxmoxMetricServer(stack, 'third', { cluster, id: 'graphite1', ...server, retired: true });
    expect(() => Testing.synth(stack)).toThrow(
      '2 problems in 2 constructs:\n' +
        'test/second: id must be unique among the metric servers of test/pve (test/first declares it too), ' +
        'got "graphite1"\n' +
        'test/third: id must be unique among the metric servers of test/pve (test/first declares it too), ' +
        'got "graphite1"',
    );
  });

  test('one id on two clusters is two servers', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    for (const name of ['a', 'b']) {
      const cluster = new ProxmoxCluster(stack, name, { endpoints: [`https://${name}:8006`] });
      new ProxmoxMetricServer(stack, `m-${name}`, { cluster, id: 'graphite1', ...server });
    }
    expect(() => Testing.synth(stack)).not.toThrow();
  });

  test('two units of one name on a host, in any unit directories, are refused; an instance too', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const host = hostIn(stack);
    const content = '[Service]\nExecStart=/bin/true\n';
    new SystemdUnit(stack, 'a', { host, name: 'probe.service', content });
    new SystemdUnit(stack, 'b', { host, name: 'probe.service', content, directory: '/usr/local/lib/systemd/system' });
    const template = new SystemdUnit(stack, 't', { host, name: 'probe@.service', content });
    template.instance('tty1');
    new SystemdUnitInstance(stack, 'again', { template, instance: 'tty1' });
    expect(() => Testing.synth(stack)).toThrow(
      '2 problems in 2 constructs:\n' +
        'test/b: name must be unique among the units of test/n2 (test/a declares it too), got "probe.service"\n' +
        'test/again: instance must be unique among the units of test/n2 (test/t-tty1 declares it too), ' +
        'got "probe@tty1.service"',
    );
  });

  test('two drop-ins of one name for one unit are refused; one name for two units is two drop-ins', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const host = hostIn(stack);
    const content = '[Service]\nLimitNOFILE=65536\n';
    new SystemdDropIn(stack, 'a', { host, unit: 'ssh.service', name: '10-limits', content });
    new SystemdDropIn(stack, 'b', { host, unit: 'cron.service', name: '10-limits', content });
    new SystemdDropIn(stack, 'c', { host, unit: 'ssh.service', name: '10-limits', content });
    expect(() => Testing.synth(stack)).toThrow(
      'test/c: name must be unique among the drop-ins of test/n2 (test/a declares it too), got "ssh.service 10-limits"',
    );
  });

  test('two Repos of one name in a namespace are refused; one name in two namespaces is two Repos', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const cluster = new KubeCluster(stack, 'home', {});
    const repo = { key: 'site', url: 'git@git.example:me/site.git', identity: 'git.example/me/site' };
    new KubeRepo(stack, 'a', { cluster, namespace: 'jr2', ...repo });
    new KubeRepo(stack, 'b', { cluster, namespace: 'other', ...repo });
    new KubeRepo(stack, 'c', { cluster, namespace: 'jr2', ...repo });
    expect(() => Testing.synth(stack)).toThrow(
      'test/c: key must be unique among the Repos of test/home (test/a declares it too), got "jr2/site"',
    );
  });
});
