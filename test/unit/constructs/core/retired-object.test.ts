import { Testing, TerraformStack } from 'cdktf';
import { ProxmoxCluster } from '../../../../constructs/pve/cluster';
import { ProxmoxMetricServer, type ProxmoxMetricServerProps } from '../../../../constructs/pve/metric-server';
import { entryNames, queryOf } from '../batch-apply';

const synth = (servers: Array<[string, Partial<ProxmoxMetricServerProps>]>) => {
  const stack = new TerraformStack(Testing.app(), 'test');
  const cluster = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] });
  for (const [id, props] of servers) {
    new ProxmoxMetricServer(stack, id, { cluster, id, type: 'graphite', server: '10.0.0.5', port: 2003, ...props });
  }
  return JSON.parse(Testing.synth(stack));
};

describe('a retired object', () => {
  test('plans no reading, no apply entry and no check of its own, only the removal of its lifecycle', () => {
    const json = synth([
      ['kept', {}],
      ['gone', { retired: true }],
    ]);
    expect(Object.keys(queryOf(json, 'pve')).sort()).toEqual(['.stack', '.target', 'kept']);
    expect(Object.keys(json.resource.terraform_data).sort()).toEqual(['kept_lifecycle', 'pve_apply']);
    expect(entryNames(json, 'pve')).toEqual(['kept']);
    expect(json.resource.terraform_data.pve_apply.depends_on).toEqual(['terraform_data.kept_lifecycle']);
    expect(Object.keys(json.check)).toEqual(['pve_in_sync']);
    expect(json.removed).toEqual([
      { from: 'terraform_data.gone_lifecycle', lifecycle: { destroy: true }, provisioner: [expect.anything()] },
    ]);
  });

  test('is removed by the same destroy hook it was created with', () => {
    const managed = synth([['gone', {}]]).resource.terraform_data.gone_lifecycle.provisioner[0]['local-exec'];
    const retired = synth([['gone', { retired: true }]]).removed[0].provisioner[0]['local-exec'];
    expect(retired).toEqual(managed);
    expect(retired.when).toBe('destroy');
  });

  test('several retired objects each keep their removal block, and with no object left there is no apply', () => {
    const json = synth([
      ['aa', { retired: true }],
      ['bb', { retired: true }],
    ]);
    expect(json.removed.map((block: { from: string }) => block.from)).toEqual([
      'terraform_data.aa_lifecycle',
      'terraform_data.bb_lifecycle',
    ]);
    expect(json.resource).toBeUndefined();
  });

  test('one whose construct says adopt carries it in its hook, so a found server it took over is deleted', () => {
    const json = synth([
      ['taken', { retired: true, adopt: true }],
      ['found', { retired: true }],
    ]);
    type Removed = { from: string; provisioner: Array<{ 'local-exec': { environment: Record<string, string> } }> };
    const hooks = (json.removed as Removed[]).map(({ from, provisioner }) => [
      from,
      provisioner[0]?.['local-exec'].environment.HOMELAB_ADOPT,
    ]);
    expect(hooks).toEqual([
      ['terraform_data.taken_lifecycle', 'true'],
      ['terraform_data.found_lifecycle', undefined],
    ]);
  });
});
