/**
 * Who may say that a removed PVE object the stack found is the stack's to delete (issue 27): the
 * record file is anyone's to edit in a pull request, and a tombstone took `adopt` from it, so an entry
 * given `adopt: true` by hand made the removal of a construct delete a server made by hand that the
 * stack had refused and never adopted. Now the tombstone's hook carries no `adopt`, and the destroy
 * deletes a found object only when the state proves the adoption: its lifecycle was created with it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Testing, TerraformStack } from 'cdktf';
import { ProxmoxCluster } from '../../../../constructs/pve/cluster';
import { ProxmoxMetricServer } from '../../../../constructs/pve/metric-server';
import { ProxmoxNetworkInterface } from '../../../../constructs/pve/network-interface';
import { destroyInput } from '../../../../src/core/lifecycle-input';
import { foundReading } from '../../../../src/core/ownership';
import { recordProject } from './record-project';

const project = recordProject('homelab-adopt-');
const dir = project.dir;
const recordFile = project.recordFile;
const WHERE = 'PVE cluster https://n1:8006';

/** One synth of stack `lab`: a kept server, and the server `hand` and bridge `vmbr7` when `withHand`. */
const synth = (withHand: boolean, adopt = false) => {
  const stack = new TerraformStack(Testing.app({ outdir: join(dir(), 'cdktf.out') }), 'lab');
  const cluster = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] });
  new ProxmoxMetricServer(stack, 'kept', { cluster, id: 'kept', type: 'graphite', server: '10.0.0.5', port: 2003 });
  if (withHand) {
    const hand = { cluster, id: 'hand', type: 'graphite', server: '10.0.0.9', port: 2003, adopt } as const;
    new ProxmoxMetricServer(stack, 'hand', hand);
    new ProxmoxNetworkInterface(stack, 'handbr', { cluster, node: 'n1', iface: 'vmbr7', type: 'bridge', adopt });
  }
  return JSON.parse(Testing.synth(stack));
};

interface Removed {
  readonly from: string;
  readonly provisioner: ReadonlyArray<{ readonly 'local-exec': { readonly environment: Record<string, string> } }>;
}

/** The environment of the tombstone hook of `name`, as Terraform runs it with the lifecycle's stored input. */
const tombstoneEnv = (json: { removed: Removed[] }, name: string, stored: object) => {
  const block = json.removed.find(({ from }) => from === `terraform_data.${name}_lifecycle`);
  const environment = block?.provisioner[0]?.['local-exec'].environment ?? {};
  return { ...environment, HOMELAB_LIFECYCLE: JSON.stringify(stored) };
};

/** What a lifecycle of a found server stores, `adopt` as its construct said when it was created. */
const foundInput = (adopt: boolean) => ({
  object: JSON.stringify({ identity: { id: 'hand' }, target: 'pve' }),
  found: foundReading({ inSync: true, summary: '', diff: {} }, adopt, WHERE).found,
});

describe('a removed PVE object its lifecycle found', () => {
  test('a record entry given adopt: true by hand does not make its removal delete it', () => {
    synth(true);
    // GIVEN a pull request that edits the record: both entries now say adopt: true.
    const record = JSON.parse(readFileSync(recordFile(), 'utf8'));
    for (const name of ['hand', 'handbr']) record.stacks.lab.objects[name].adopt = true;
    writeFileSync(recordFile(), JSON.stringify(record));
    // WHEN the constructs are removed
    const after = synth(false);
    // THEN their tombstones carry no adopt, and the destroy of the found, never adopted server leaves it.
    expect(after.removed.map(({ from }: Removed) => from)).toEqual([
      'terraform_data.hand_lifecycle',
      'terraform_data.handbr_lifecycle',
    ]);
    for (const block of after.removed as Removed[]) {
      expect(block.provisioner[0]?.['local-exec'].environment).not.toHaveProperty('HOMELAB_ADOPT');
    }
    expect(destroyInput(tombstoneEnv(after, 'hand', foundInput(false)))).toMatchObject({
      target: undefined,
      kept: expect.stringMatching(/^left in place: it existed before this stack declared it/),
    });
  });

  test('created with adopt: true, its removal deletes it: the state proves the adoption, the record holds none', () => {
    synth(true, true);
    const objects = JSON.parse(readFileSync(recordFile(), 'utf8')).stacks.lab.objects;
    expect(objects.hand).not.toHaveProperty('adopt');
    const after = synth(false);
    expect(destroyInput(tombstoneEnv(after, 'hand', foundInput(true)))).toEqual({
      target: { endpoints: ['https://n1:8006'], tokenEnv: 'PROXMOX_VE_API_TOKEN' },
      identity: { id: 'hand' },
    });
  });

  test('an adopt: true an earlier version wrote into the record is read past and dropped', () => {
    synth(true);
    const record = JSON.parse(readFileSync(recordFile(), 'utf8'));
    record.stacks.lab.objects.hand.adopt = true;
    writeFileSync(recordFile(), JSON.stringify(record));
    synth(false);
    expect(JSON.parse(readFileSync(recordFile(), 'utf8')).stacks.lab.objects.hand).toEqual({
      kind: 'metric-server',
      target: 'pve',
      state: 'removed',
      identity: { id: 'hand', type: 'graphite' },
    });
  });
});
