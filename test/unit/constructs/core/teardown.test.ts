/**
 * A target's teardown (constructs/core/teardown.ts), the destroy hook of its batch apply: it lists the lifecycles of
 * the kinds whose destroys may run together, each lifecycle's stored input read from it into the apply's input (which
 * Terraform ignores the changes of, so no plan changes for it) and each object's other hook fields from the
 * configuration, in variables Linux can pass; a lifecycle Terraform orders against another resource, and every kind
 * that must be ordered (network interfaces), stays with its own hook.
 */
import { Testing, TerraformStack } from 'cdktf';
import { ProxmoxCluster } from '../../../../constructs/pve/cluster';
import { ProxmoxMetricServer } from '../../../../constructs/pve/metric-server';
import { ProxmoxNetworkInterface } from '../../../../constructs/pve/network-interface';
import { SshHost } from '../../../../constructs/linux/ssh-host';
import { SystemdDropIn } from '../../../../constructs/linux/systemd-drop-in';
import { SystemdUnit } from '../../../../constructs/linux/systemd-unit';

const KEY = 'SHA256:' + 'A'.repeat(43);
type Exec = { command: string; when?: string; environment: Record<string, string> };
type Data = Record<
  string,
  { input: Record<string, Record<string, string>>; provisioner: Array<{ 'local-exec': Exec }> }
>;
const synth = (stack: TerraformStack): { resource: { terraform_data: Data } } => JSON.parse(Testing.synth(stack));

const unitsOn = (stack: TerraformStack) => {
  const host = new SshHost(stack, 'n2', { host: '10.0.0.2', hostKey: KEY, privateKeyEnv: 'N2_SSH_KEY' });
  const unit = (id: string, adopt = false) =>
    new SystemdUnit(stack, id, { host, name: `${id}.service`, content: '[Service]\nExecStart=/bin/true\n', adopt });
  return { host, unit };
};

describe('a target teardown', () => {
  test("lists its units' lifecycles, read from them, and each hook's own fields; the ordered ones stay out", () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const { host, unit } = unitsOn(stack);
    unit('a');
    unit('b', true);
    const tuned = unit('tuned');
    new SystemdDropIn(stack, 'tune', { host, unit: tuned, name: 'tune.conf', content: '[Service]\nNice=5\n' });
    unit('first');
    unit('after').applyAfter(unit('before'));
    const data = synth(stack).resource.terraform_data;
    const apply = data.n2_apply;
    expect(Object.keys(apply?.input ?? {}).sort()).toEqual(['basis', 'drifted', 'target', 'teardown_0']);
    expect(apply?.input.teardown_0).toEqual({
      a_lifecycle: '${jsonencode(terraform_data.a_lifecycle.input)}',
      b_lifecycle: '${jsonencode(terraform_data.b_lifecycle.input)}',
      first_lifecycle: '${jsonencode(terraform_data.first_lifecycle.input)}',
    });
    expect(apply?.provisioner[0]?.['local-exec'].command).toMatch(/linux\.js" batch apply$/);
    const exec = apply?.provisioner[1]?.['local-exec'];
    const hook = data.a_lifecycle?.provisioner[0]?.['local-exec'];
    expect(exec?.when).toBe('destroy');
    expect(exec?.command).toBe(`${hook?.command} teardown`);
    const { HOMELAB_STACK, HOMELAB_TARGET, HOMELAB_TARGET_LABEL } = hook?.environment ?? {};
    expect(exec?.environment).toEqual({
      HOMELAB_STACK,
      HOMELAB_TARGET,
      HOMELAB_TARGET_LABEL,
      HOMELAB_TEARDOWN_0: '${jsonencode(lookup(self.input, "teardown_0", {}))}',
      HOMELAB_TEARDOWN_FIELDS_0: JSON.stringify({
        a_lifecycle: { HOMELAB_KIND: 'systemd-unit' },
        b_lifecycle: { HOMELAB_KIND: 'systemd-unit', HOMELAB_ADOPT: 'true' },
        first_lifecycle: { HOMELAB_KIND: 'systemd-unit' },
      }),
    });
  });

  test('network interfaces, staged and reloaded in an order, have none; metric servers on the same cluster do', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const pve = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] });
    new ProxmoxNetworkInterface(stack, 'br', { cluster: pve, node: 'n2', iface: 'vmbr1', type: 'bridge' });
    const alone = synth(stack).resource.terraform_data.pve_apply;
    expect(alone?.provisioner).toHaveLength(1);
    expect(alone?.input).not.toHaveProperty('teardown_0');
    new ProxmoxMetricServer(stack, 'm', { cluster: pve, id: 'gr', type: 'graphite', server: '10.0.0.5', port: 2003 });
    const both = synth(stack).resource.terraform_data.pve_apply;
    expect(Object.keys(both?.input.teardown_0 ?? {})).toEqual(['m_lifecycle']);
    expect(both?.provisioner[1]?.['local-exec'].when).toBe('destroy');
  });

  test('1000 metric servers come in parts, each variable well within the 128 KiB Linux passes', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const pve = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] });
    for (let i = 0; i < 1000; i += 1) {
      new ProxmoxMetricServer(stack, `m${i}`, { cluster: pve, id: `m${i}`, type: 'graphite', server: 'h', port: 2003 });
    }
    const apply = synth(stack).resource.terraform_data.pve_apply;
    const parts = Object.entries(apply?.input ?? {}).flatMap(([key, part]) =>
      key.startsWith('teardown_') ? [part] : [],
    );
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.flatMap((part) => Object.keys(part))).toHaveLength(1000);
    const environment = apply?.provisioner[1]?.['local-exec'].environment ?? {};
    expect(Object.keys(environment).filter((name) => name.startsWith('HOMELAB_TEARDOWN_FIELDS_'))).toHaveLength(
      parts.length,
    );
    // What each state part's variable will hold: per server its lifecycle's stored input (its found text aside,
    // which the estimate allows 2 KiB), JSON-quoted twice.
    for (const part of parts) {
      const stored = Object.keys(part).map((name) => [name, JSON.stringify(JSON.stringify('x'.repeat(300)))]);
      expect(JSON.stringify(Object.fromEntries(stored)).length).toBeLessThan(128 * 1024);
    }
    for (const value of Object.values(environment)) expect(value.length).toBeLessThan(128 * 1024);
  });
});
