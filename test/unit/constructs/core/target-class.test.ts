/**
 * A construct's target prop takes only its domain's target construct: another domain's (an SshHost as a
 * cluster), or an object carrying a `target`, synthesized and failed only at plan, or threw a TypeError.
 * Each is now a problem naming the prop and the construct it must be.
 */
import type { TerraformStack } from 'cdktf';
import { KubeCluster } from '../../../../constructs/kube/cluster';
import { KubeRepo } from '../../../../constructs/kube/kube-repo';
import { KubeRepoFetch } from '../../../../constructs/kube/kube-repo-fetch';
import { SshHost } from '../../../../constructs/linux/ssh-host';
import { SystemdDropIn } from '../../../../constructs/linux/systemd-drop-in';
import { SystemdUnitInstance } from '../../../../constructs/linux/systemd-instance';
import { SystemdUnit } from '../../../../constructs/linux/systemd-unit';
import { ProxmoxCluster } from '../../../../constructs/pve/cluster';
import { ProxmoxMetricServer } from '../../../../constructs/pve/metric-server';
import { ProxmoxNetworkApply } from '../../../../constructs/pve/network-apply';
import { ProxmoxNetworkInterface } from '../../../../constructs/pve/network-interface';
import { synthError } from '../synth-error';

type Target = (stack: TerraformStack) => unknown;
const pve: Target = (stack) => new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] });
const ssh: Target = (stack) => new SshHost(stack, 'n2', { host: '10.0.0.2', insecureAcceptAnyHostKey: true });
const kube: Target = (stack) => new KubeCluster(stack, 'home', { kubeconfig: '~/.kube/config' });
const plain: Target = () => ({ target: {} });
const UNIT = { name: 'a.service', content: '[Service]\nExecStart=/bin/true\n' };

/** Each construct declared with `target` as its target prop, as a plain-JavaScript app could. */
const declare: Record<string, (stack: TerraformStack, target: unknown) => void> = {
  ProxmoxMetricServer: (stack, cluster) =>
    new ProxmoxMetricServer(stack, 'm', { cluster, id: 'm1', type: 'graphite', server: 'x', port: 2003 } as never),
  ProxmoxNetworkInterface: (stack, cluster) =>
    new ProxmoxNetworkInterface(stack, 'i', { cluster, node: 'n1', iface: 'vmbr1', type: 'bridge' } as never),
  ProxmoxNetworkApply: (stack, cluster) => new ProxmoxNetworkApply(stack, 'a', { cluster, nodes: ['n1'] } as never),
  SystemdUnit: (stack, host) => new SystemdUnit(stack, 'u', { host, ...UNIT } as never),
  SystemdDropIn: (stack, host) =>
    new SystemdDropIn(stack, 'd', { host, unit: 'a.service', name: 'x', content: UNIT.content } as never),
  KubeRepo: (stack, cluster) =>
    new KubeRepo(stack, 'r', { cluster, namespace: 'a', key: 'b', url: 'https://g/x', identity: 'x' } as never),
  KubeRepoFetch: (stack, cluster) =>
    new KubeRepoFetch(stack, 'f', { cluster, namespace: 'a', sandbox: 's', key: 'b', trigger: 'v1' } as never),
};

describe('the target prop takes its domain target construct only', () => {
  test.each([
    ['ProxmoxMetricServer', ssh, 'cluster must be a ProxmoxCluster, got a SshHost'],
    ['ProxmoxMetricServer', plain, 'cluster must be a ProxmoxCluster, got {"target":{}}'],
    ['ProxmoxNetworkInterface', kube, 'cluster must be a ProxmoxCluster, got a KubeCluster'],
    ['ProxmoxNetworkApply', ssh, 'cluster must be a ProxmoxCluster, got a SshHost'],
    ['SystemdUnit', pve, 'host must be an SshHost, got a ProxmoxCluster'],
    ['SystemdUnit', plain, 'host must be an SshHost, got {"target":{}}'],
    ['SystemdDropIn', kube, 'host must be an SshHost, got a KubeCluster'],
    ['KubeRepo', pve, 'cluster must be a KubeCluster, got a ProxmoxCluster'],
    ['KubeRepoFetch', plain, 'cluster must be a KubeCluster, got {"target":{}}'],
  ])('%s is refused with a wrong target (%#)', (kind, target, says) => {
    expect(synthError((stack) => declare[kind]?.(stack, target(stack)))).toContain(says);
  });

  test('an instance is refused with a template whose host is no SshHost', () => {
    const error = synthError((stack) => {
      const template = { spec: { name: 'p@.service', directory: '/etc/systemd/system', content: UNIT.content } };
      new SystemdUnitInstance(stack, 'i', { template: { ...template, host: pve(stack) }, instance: 'x' } as never);
    });
    expect(error).toContain('template must be a SystemdUnit named foo@.service');
  });
});
