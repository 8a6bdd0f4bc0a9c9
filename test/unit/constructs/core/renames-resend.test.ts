/**
 * A renamed metric server with `tokenVersion` (README, Removing an object): its `<name>_resend` resource, whose
 * creation re-sends the write-only token, moves with its lifecycle. Only the lifecycle moved, so the plan showed
 * `<new>_resend will be created` and the apply sent the token again for a rename alone (an audit last session).
 */
import { join } from 'node:path';
import { Testing, TerraformStack } from 'cdktf';
import { ProxmoxCluster } from '../../../../constructs/pve/cluster';
import { ProxmoxMetricServer } from '../../../../constructs/pve/metric-server';
import { recordProject } from './record-project';

const project = recordProject('homelab-renames-resend-');

/** One synth of stack `lab`: influxdb servers under these construct ids, with `tokenVersion` when given. */
const synth = (servers: ReadonlyArray<readonly [construct: string, tokenVersion?: number]>) => {
  const stack = new TerraformStack(Testing.app({ outdir: join(project.dir(), 'cdktf.out') }), 'lab');
  const cluster = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] });
  for (const [construct, tokenVersion] of servers) {
    const props = { cluster, id: 'influx', type: 'influxdb' as const, server: '10.0.0.5', port: 8086 };
    new ProxmoxMetricServer(stack, construct, { ...props, tokenEnv: 'INFLUX_TOKEN', tokenVersion });
  }
  return JSON.parse(Testing.synth(stack));
};

const move = (from: string, to: string, resource: 'lifecycle' | 'resend') => ({
  from: `terraform_data.${from}_${resource}`,
  to: `terraform_data.${to}_${resource}`,
});

test('a renamed server with tokenVersion moves its resend resource with its lifecycle', () => {
  synth([['old', 1]]);
  expect(synth([['new', 1]]).moved).toEqual([move('old', 'new', 'lifecycle'), move('old', 'new', 'resend')]);
});

test('a renamed server whose tokenVersion changes moves its resend too, which the new version then replaces', () => {
  synth([['old', 1]]);
  const after = synth([['new', 2]]);
  expect(after.moved).toContainEqual(move('old', 'new', 'resend'));
  expect(after.resource.terraform_data.new_resend.triggers_replace).toEqual({ resendOn: 2 });
});

test('a renamed server without tokenVersion moves its lifecycle alone: no resend resource is named', () => {
  synth([['old', 1]]);
  expect(synth([['new']]).moved).toEqual([move('old', 'new', 'lifecycle')]);
});
