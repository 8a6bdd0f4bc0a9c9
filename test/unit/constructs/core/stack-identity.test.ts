/**
 * The stack identity the marks name (issue 27 item 3), as synth derives it: the context
 * `cdktf-homelab:stackId`, else the TerraformStack's id; one the rule refuses fails the synth, naming it.
 */
import { App, Testing, TerraformStack } from 'cdktf';
import { stackIdOf } from '../../../../constructs/core/stack-identity';
import { ProxmoxCluster } from '../../../../constructs/pve/cluster';
import { ProxmoxMetricServer } from '../../../../constructs/pve/metric-server';

/** Synthesizes `stack` holding one metric server, whose marks name the stack. */
const synthWithObject = (stack: TerraformStack) => () => {
  const cluster = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] });
  new ProxmoxMetricServer(stack, 'm', { cluster, id: 'graphite1', type: 'graphite', server: 'h', port: 2003 });
  return Testing.synth(stack);
};

const stackIn = (id: string, context?: Record<string, unknown>) =>
  new TerraformStack(context === undefined ? Testing.app() : new App({ context, outdir: Testing.app().outdir }), id);

describe('the stack identity', () => {
  test("is the TerraformStack's id unless the context names one", () => {
    expect(stackIdOf(stackIn('lab'))).toBe('lab');
    expect(stackIdOf(stackIn('lab', { 'cdktf-homelab:stackId': 'lab.prod-2' }))).toBe('lab.prod-2');
  });

  test('refuses an identity that could not sit in a mark, naming the stack and the context key', () => {
    expect(synthWithObject(stackIn('lab_'))).toThrow(
      /^lab_: the stack's id "lab_" names the stack in its objects' marks and must be 1 to 63 .*: set the context /,
    );
    expect(synthWithObject(stackIn('lab', { 'cdktf-homelab:stackId': 'x"; rm' }))).toThrow(
      /^lab: cdktf-homelab:stackId "x\\"; rm" names the stack/,
    );
  });
});
