/**
 * What synth leaves to the handler when a boolean, list or map is a Terraform value: the handler boundary judges
 * the value Terraform put in the spec by the prop's rule and the rules across props, so a value of the wrong type
 * (a string variable given to a boolean prop) is refused naming the field, never coerced; and objects on one
 * target whose settings hold a Terraform value given whole still share the target's one read.
 */
import { Testing, TerraformStack, TerraformVariable } from 'cdktf';
import { KubeCluster } from '../../../../constructs/kube/cluster';
import { KubeRepoFetch } from '../../../../constructs/kube/kube-repo-fetch';
import { SshHost } from '../../../../constructs/linux/ssh-host';
import { SystemdUnit } from '../../../../constructs/linux/systemd-unit';
import { ProxmoxCluster } from '../../../../constructs/pve/cluster';
import { ProxmoxMetricServer } from '../../../../constructs/pve/metric-server';
import { ProxmoxNetworkInterface } from '../../../../constructs/pve/network-interface';
import { parseAs } from '../../../../src/core/parse';
import { parseSshTarget } from '../../../../src/linux/target';
import { unitSpec } from '../../../../src/linux/systemd-unit';
import { encodeBase64Json } from '../../../../src/pve/metric-fields';
import { metricServerSpec } from '../../../../src/pve/metric-server';
import { networkInterfaceSpec } from '../../../../src/pve/network-interface';
import { pveTargetSchema } from '../../../../src/pve/target';

const CONTENT = '[Service]\nExecStart=/bin/true\n';

/** A stack with a bool variable `flag`, whose value synth does not know. */
const withFlag = () => {
  const stack = new TerraformStack(Testing.app(), 'test');
  return { stack, flag: new TerraformVariable(stack, 'flag', { type: 'bool' }).booleanValue };
};

describe('a Terraform value synth left to the handler', () => {
  test('a unit whose enabled is given a string is refused naming the field, not coerced', () => {
    const { stack, flag } = withFlag();
    const host = new SshHost(stack, 'n2', { host: '10.0.0.2', insecureAcceptAnyHostKey: true });
    const { spec } = new SystemdUnit(stack, 'u', { host, name: 'a.service', content: CONTENT, enabled: flag });
    expect(() => parseAs(unitSpec, { ...spec, enabled: 'true' }, 'spec')).toThrow(
      'Bad input: spec.enabled: must be a boolean, got "true"',
    );
  });

  test("a metric server's attributes of the wrong type are refused after Terraform's base64", () => {
    const { stack } = withFlag();
    const labels = new TerraformVariable(stack, 'labels', { type: 'map(number)' }).value;
    const cluster = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] });
    const props = { id: 'o1', type: 'opentelemetry', server: 'x', port: 4318 } as const;
    new ProxmoxMetricServer(stack, 'm', { cluster, ...props, otelResourceAttributes: labels });
    expect(Testing.synth(stack)).toContain('base64encode(jsonencode(var.labels))');
    // What Terraform hands the handler for {site = 1}.
    const options = { 'otel-resource-attributes': encodeBase64Json({ site: 1 }) };
    expect(() => parseAs(metricServerSpec, { ...props, options }, 'spec')).toThrow(
      'Bad input: spec.options.otel-resource-attributes: must be an object of string values whose base64 JSON ' +
        'is at most 1024 characters, got {"site":1}',
    );
  });

  test('a rule across props that reads a Terraform value is judged by the handler', () => {
    const { stack, flag } = withFlag();
    const cluster = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] });
    const props = { node: 'n1', iface: 'vmbr1', type: 'bridge' } as const;
    new ProxmoxNetworkInterface(stack, 'i', { cluster, ...props, bridgeVids: [10], bridgeVlanAware: flag });
    expect(() => Testing.synth(stack)).not.toThrow();
    // What Terraform hands the handler with the variable false.
    const spec = { ...props, options: { bridge_vlan_aware: false, bridge_vids: ['10'] } };
    expect(() => parseAs(networkInterfaceSpec, spec, 'spec')).toThrow(
      'Bad input: spec.options.bridge_vids: must be unset unless bridgeVlanAware is true ' +
        '(PVE writes VLAN ids only then), got ["10"]',
    );
  });

  test.each([
    ['SshHost', () => parseSshTarget({ host: 'h', insecureAcceptAnyHostKey: 'yes' }), 'insecureAcceptAnyHostKey'],
    [
      'ProxmoxCluster',
      () => parseAs(pveTargetSchema, { endpoints: ['https://n1:8006'], insecure: 1 }, 'target'),
      'insecure',
    ],
  ])("a %s target's boolean of the wrong type is refused naming it", (_, parse, field) => {
    expect(parse).toThrow(new RegExp(`^Bad input: target\\.${field}: must be a boolean, got`));
  });

  // A Terraform value is never 'root' at synth: a user variable set to root was written `sudo: true`.
  test('an SshHost whose user is a Terraform value leaves sudo to the handler, which says it from the user', () => {
    const { stack } = withFlag();
    const user = new TerraformVariable(stack, 'login', { type: 'string' }).stringValue;
    const { target } = new SshHost(stack, 'n2', { host: '10.0.0.2', insecureAcceptAnyHostKey: true, user });
    expect(target.sudo).toBeUndefined();
    expect(parseSshTarget({ ...target, user: 'root' }).sudo).toBe(false);
    expect(parseSshTarget({ ...target, user: 'deploy' }).sudo).toBe(true);
  });

  test('objects on a target whose settings hold a Terraform value share its one read', () => {
    const { stack, flag } = withFlag();
    const host = new SshHost(stack, 'n2', { host: '10.0.0.2', insecureAcceptAnyHostKey: flag });
    new SystemdUnit(stack, 'a', { host, name: 'a.service', content: CONTENT });
    new SystemdUnit(stack, 'b', { host, name: 'b.service', content: CONTENT });
    expect(Object.keys(JSON.parse(Testing.synth(stack)).data.external)).toEqual(['n2_read']);
  });

  test('asks on a cluster whose inCluster is a Terraform value are not taken for asks on the kubeconfig', () => {
    const { stack, flag } = withFlag();
    const ask = { namespace: 'jr2', sandbox: 's', key: 'site', trigger: 'v1' };
    new KubeRepoFetch(stack, 'a', { cluster: new KubeCluster(stack, 'file', {}), ...ask });
    new KubeRepoFetch(stack, 'b', { cluster: new KubeCluster(stack, 'pod', { inCluster: flag }), ...ask });
    expect(() => Testing.synth(stack)).not.toThrow();
  });
});
