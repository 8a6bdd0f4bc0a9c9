/**
 * A target's teardown (constructs/core/teardown.ts), the destroy hook of its batch apply: it lists the objects of the
 * kinds whose destroys may run together, each with its lifecycle's literal input and its hook's own fields, in
 * variables Linux can pass, and keeps in the apply's input (whose changes Terraform ignores, so no plan changes for it)
 * one digest per part of those inputs as the state holds them; a lifecycle Terraform orders against another resource,
 * one whose input is no literal (a metric server's), and every kind that must be ordered, stays with its own hook.
 */
import { Testing, TerraformStack } from 'cdktf';
import { ProxmoxCluster } from '../../../../constructs/pve/cluster';
import { ProxmoxMetricServer } from '../../../../constructs/pve/metric-server';
import { ProxmoxNetworkInterface } from '../../../../constructs/pve/network-interface';
import { SshHost } from '../../../../constructs/linux/ssh-host';
import { SystemdDropIn } from '../../../../constructs/linux/systemd-drop-in';
import { SystemdUnit } from '../../../../constructs/linux/systemd-unit';

const KEY = 'SHA256:' + 'A'.repeat(43);
type Exec = { interpreter?: string[]; command: string; when?: string; environment: Record<string, string> };
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
    const inputs = ['a', 'b', 'first'].map((id) => `terraform_data.${id}_lifecycle.input`).join(', ');
    expect(apply?.input.teardown_0).toBe(`\${sha256(join("\\n", [${inputs}]))}`);
    expect(apply?.provisioner[0]?.['local-exec'].command).toMatch(/linux\.js" batch apply$/);
    const exec = apply?.provisioner[1]?.['local-exec'];
    const hook = (id: string) => data[`${id}_lifecycle`]?.provisioner[0]?.['local-exec'];
    expect(exec?.when).toBe('destroy');
    expect([exec?.interpreter, exec?.command]).toEqual([hook('a')?.interpreter, 'teardown']);
    expect(hook('a')?.command).toBe('destroy');
    expect(hook('a')?.environment.HOMELAB_OBJECT).toBe('a_lifecycle');
    const { HOMELAB_STACK, HOMELAB_TARGET, HOMELAB_TARGET_LABEL } = hook('a')?.environment ?? {};
    const listed = (id: string, fields: Record<string, string>) => [
      `${id}_lifecycle`,
      { input: data[`${id}_lifecycle`]?.input, fields: { HOMELAB_KIND: 'systemd-unit', ...fields } },
    ];
    expect(exec?.environment).toEqual({
      HOMELAB_STACK,
      HOMELAB_TARGET,
      HOMELAB_TARGET_LABEL,
      HOMELAB_TEARDOWN_0: '${lookup(self.input, "teardown_0", "")}',
      HOMELAB_TEARDOWN_FIELDS_0: JSON.stringify(
        Object.fromEntries([listed('a', {}), listed('b', { HOMELAB_ADOPT: 'true' }), listed('first', {})]),
      ),
    });
  });

  test('network interfaces (reloaded in order) and metric servers (input no literal) have none', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const pve = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] });
    new ProxmoxNetworkInterface(stack, 'br', { cluster: pve, node: 'n2', iface: 'vmbr1', type: 'bridge' });
    new ProxmoxMetricServer(stack, 'm', { cluster: pve, id: 'gr', type: 'graphite', server: '10.0.0.5', port: 2003 });
    const data = synth(stack).resource.terraform_data;
    const apply = data.pve_apply;
    expect(apply?.provisioner).toHaveLength(1);
    expect(apply?.input).not.toHaveProperty('teardown_0');
    // No outcome is left for them, so their hooks are given no lifecycle name to find one by.
    for (const id of ['br', 'm']) {
      expect(data[`${id}_lifecycle`]?.provisioner[0]?.['local-exec'].environment).not.toHaveProperty('HOMELAB_OBJECT');
    }
  });

  test('1000 units come in parts, each variable well within the 128 KiB Linux passes', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const { unit } = unitsOn(stack);
    for (let i = 0; i < 1000; i += 1) unit(`u${i}`);
    const apply = synth(stack).resource.terraform_data.n2_apply;
    const parts = Object.keys(apply?.input ?? {}).filter((key) => key.startsWith('teardown_'));
    expect(parts.length).toBeGreaterThan(1);
    const environment = apply?.provisioner[1]?.['local-exec'].environment ?? {};
    const fields = Object.keys(environment).filter((name) => name.startsWith('HOMELAB_TEARDOWN_FIELDS_'));
    expect(fields).toHaveLength(parts.length);
    expect(fields.flatMap((name) => Object.keys(JSON.parse(environment[name] ?? '{}')))).toHaveLength(1000);
    for (const value of Object.values(environment)) expect(value.length).toBeLessThan(64 * 1024);
  });
});
