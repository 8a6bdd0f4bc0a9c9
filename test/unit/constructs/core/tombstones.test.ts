/**
 * Removing a construct plans the deletion of its object: synth keeps a record beside cdktf.json of
 * what each stack declared, and an object in the record that the code no longer declares gets a
 * `removed` block with the destroy hook it was created with (a tombstone). Without it, Terraform
 * says `will be destroyed` and leaves the object on its target.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Testing, TerraformStack, TerraformVariable } from 'cdktf';
import { ProxmoxCluster } from '../../../../constructs/pve/cluster';
import { ProxmoxMetricServer, type ProxmoxMetricServerProps } from '../../../../constructs/pve/metric-server';
import { ProxmoxNetworkApply } from '../../../../constructs/pve/network-apply';
import { ProxmoxNetworkInterface } from '../../../../constructs/pve/network-interface';
import { queryOf } from '../batch-apply';
import { recordProject } from './record-project';

type Server = [string, Partial<ProxmoxMetricServerProps>];

const project = recordProject('homelab-record-');
const dir = project.dir;
const record = () => readFileSync(project.recordFile(), 'utf8');

/** One synth of stack `lab` in a fresh app, as `cdktf synth` runs the app once. */
const synth = (servers: Server[], endpoint = 'https://n1:8006') => {
  const stack = new TerraformStack(Testing.app({ outdir: join(dir(), 'cdktf.out') }), 'lab');
  const cluster = new ProxmoxCluster(stack, 'pve', { endpoints: [endpoint] });
  for (const [id, props] of servers) {
    new ProxmoxMetricServer(stack, id, { cluster, id, type: 'graphite', server: '10.0.0.5', port: 2003, ...props });
  }
  return JSON.parse(Testing.synth(stack));
};

interface Hook {
  readonly 'local-exec': { readonly environment: Record<string, string> };
}

/** The provisioner of `<name>_lifecycle`: its destroy hook. */
const hookOf = (json: { resource: { terraform_data: Record<string, { provisioner: Hook[] }> } }, name: string) =>
  json.resource.terraform_data[`${name}_lifecycle`]?.provisioner[0] as Hook;

describe('a construct removed from the code', () => {
  test('gets a removed block running the destroy hook it was created with', () => {
    const before = synth([
      ['kept', {}],
      ['gone', {}],
    ]);
    const after = synth([['kept', {}]]);
    expect(after.removed).toEqual([
      { from: 'terraform_data.gone_lifecycle', lifecycle: { destroy: true }, provisioner: [hookOf(before, 'gone')] },
    ]);
    expect(Object.keys(after.resource.terraform_data).sort()).toEqual(['kept_lifecycle', 'pve_apply']);
  });

  test('one whose construct said adopt: its tombstone carries no adopt, the state proves it (tombstone-adopt)', () => {
    const before = synth([
      ['kept', {}],
      ['taken', { adopt: true }],
    ]);
    expect(hookOf(before, 'taken')['local-exec'].environment.HOMELAB_ADOPT).toBe('true');
    expect(JSON.parse(record()).stacks.lab.objects.taken).not.toHaveProperty('adopt');
    const after = synth([['kept', {}]]);
    expect(after.removed).toEqual([
      { from: 'terraform_data.taken_lifecycle', lifecycle: { destroy: true }, provisioner: [hookOf(before, 'kept')] },
    ]);
  });

  test('keeps its tombstone on every later synth, so a second synth before the apply still deletes it', () => {
    synth([
      ['kept', {}],
      ['gone', {}],
    ]);
    const first = synth([['kept', {}]]);
    const written = record();
    const second = synth([['kept', {}]]);
    expect(second.removed).toEqual(first.removed);
    expect(record()).toBe(written);
  });

  test('its tombstone holds the settings its target has now, when the target is still declared', () => {
    synth([
      ['kept', {}],
      ['gone', {}],
    ]);
    const after = synth([['kept', {}]], 'https://n2:8006');
    const env = after.removed[0].provisioner[0]['local-exec'].environment;
    expect(env).toEqual(hookOf(after, 'kept')['local-exec'].environment);
    expect(env.HOMELAB_TARGET).toContain('https://n2:8006');
  });

  test('with every object of the stack removed, the tombstones keep the last known target', () => {
    const before = synth([['gone', {}]]);
    const after = synth([]);
    expect(after.resource).toBeUndefined();
    expect(after.removed).toEqual([
      { from: 'terraform_data.gone_lifecycle', lifecycle: { destroy: true }, provisioner: [hookOf(before, 'gone')] },
    ]);
  });

  test('declared again, it is managed again and its tombstone goes', () => {
    synth([
      ['kept', {}],
      ['gone', {}],
    ]);
    synth([['kept', {}]]);
    const again = synth([
      ['kept', {}],
      ['gone', {}],
    ]);
    expect(again.removed).toBeUndefined();
    expect(again.resource.terraform_data.gone_lifecycle).toBeDefined();
  });

  test('a target holding a Terraform value: the hook passes no settings, the lifecycle holds them', () => {
    const withVariable = () => {
      const stack = new TerraformStack(Testing.app({ outdir: join(dir(), 'cdktf.out') }), 'lab');
      const endpoint = new TerraformVariable(stack, 'endpoint', { type: 'string' });
      const cluster = new ProxmoxCluster(stack, 'pve', { endpoints: [endpoint.stringValue] });
      return { stack, cluster };
    };
    const { stack, cluster } = withVariable();
    new ProxmoxMetricServer(stack, 'gone', { cluster, id: 'gone', type: 'graphite', server: '10.0.0.5', port: 2003 });
    Testing.synth(stack);
    const after = JSON.parse(Testing.synth(withVariable().stack));
    expect(Object.keys(after.removed[0].provisioner[0]['local-exec'].environment)).toEqual([
      'HOMELAB_KIND',
      'HOMELAB_LIFECYCLE',
      'HOMELAB_STACK',
    ]);
  });
});

describe('a network interface removed from the code', () => {
  /** Stack `lab`: a bond and a bridge on it on n1 when `withInterfaces`, and the reload of n1. */
  const network = (withInterfaces: boolean) => {
    const stack = new TerraformStack(Testing.app({ outdir: join(dir(), 'cdktf.out') }), 'lab');
    const cluster = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] });
    if (withInterfaces) {
      new ProxmoxNetworkInterface(stack, 'bridge', {
        cluster,
        node: 'n1',
        iface: 'vmbr5',
        type: 'bridge',
        bridgePorts: ['bond0'],
      });
      new ProxmoxNetworkInterface(stack, 'bond', {
        cluster,
        node: 'n1',
        iface: 'bond0',
        type: 'bond',
        slaves: ['enp3s0'],
      });
    }
    new ProxmoxNetworkApply(stack, 'net', { cluster, nodes: ['n1'] });
    return JSON.parse(Testing.synth(stack));
  };

  test('is deleted by its tombstone, and the reload of its node waits: the apply reads it as still there', () => {
    const before = network(true);
    expect(JSON.parse(queryOf(before, 'pve').net ?? '{}').spec).not.toHaveProperty('removing');
    const after = network(false);
    expect(after.removed.map((block: { from: string }) => block.from)).toEqual([
      'terraform_data.bond_lifecycle',
      'terraform_data.bridge_lifecycle',
    ]);
    expect(JSON.parse(queryOf(after, 'pve').net ?? '{}').spec.removing).toEqual({ n1: ['bond0', 'vmbr5'] });
    expect(after.resource.terraform_data.pve_apply.depends_on).toEqual(['terraform_data.net_lifecycle']);
  });
});

describe('forget: true', () => {
  test('drops the object from the state without deleting it, and so does deleting the construct afterwards', () => {
    const forgotten = synth([
      ['kept', {}],
      ['old', { forget: true }],
    ]);
    expect(forgotten.removed).toEqual([{ from: 'terraform_data.old_lifecycle', lifecycle: { destroy: false } }]);
    expect(Object.keys(forgotten.resource.terraform_data).sort()).toEqual(['kept_lifecycle', 'pve_apply']);
    expect(synth([['kept', {}]]).removed).toEqual(forgotten.removed);
    expect(JSON.parse(record()).stacks.lab.objects.old.state).toBe('forgotten');
  });
});

describe('forget: true on a network apply', () => {
  test('drops it from the state without its teardown reload, and its interfaces stay managed', () => {
    const stack = new TerraformStack(Testing.app({ outdir: join(dir(), 'cdktf.out') }), 'lab');
    const cluster = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] });
    new ProxmoxNetworkInterface(stack, 'bridge', { cluster, node: 'n1', iface: 'vmbr5', type: 'bridge' });
    new ProxmoxNetworkApply(stack, 'net', { cluster, nodes: ['n1'], forget: true });
    const json = JSON.parse(Testing.synth(stack));
    expect(json.removed).toEqual([{ from: 'terraform_data.net_lifecycle', lifecycle: { destroy: false } }]);
    expect(Object.keys(json.resource.terraform_data).sort()).toEqual(['bridge_lifecycle', 'pve_apply']);
    // An interface's lifecycle follows only its batch's recheck (batch-recheck.ts): nothing orders it.
    expect(json.resource.terraform_data.bridge_lifecycle.depends_on).toEqual(['data.external.pve_recheck']);
  });
});

describe('the record', () => {
  test('is stable: sorted keys, and a repeated synth writes the same bytes', () => {
    synth([
      ['zz', {}],
      ['aa', { retired: true }],
      ['mm', { forget: true }],
    ]);
    const first = record();
    synth([
      ['zz', {}],
      ['aa', { retired: true }],
      ['mm', { forget: true }],
    ]);
    expect(record()).toBe(first);
    expect(JSON.parse(first)).toEqual({
      stacks: {
        lab: {
          objects: {
            aa: { kind: 'metric-server', state: 'declared', target: 'pve' },
            mm: { kind: 'metric-server', state: 'forgotten', target: 'pve' },
            zz: { identity: { id: 'zz', type: 'graphite' }, kind: 'metric-server', state: 'declared', target: 'pve' },
          },
        },
      },
    });
    expect(Object.keys(JSON.parse(first).stacks.lab.objects)).toEqual(['aa', 'mm', 'zz']);
  });

  test('a retired object keeps working: one removed block, and none more once its construct is deleted', () => {
    const retired = synth([
      ['kept', {}],
      ['aa', { retired: true }],
    ]);
    expect(retired.removed).toHaveLength(1);
    expect(synth([['kept', {}]]).removed).toEqual(retired.removed);
  });

  test('is not kept without cdktf.json in the working directory: nothing is planned for removal', () => {
    rmSync(join(dir(), 'cdktf.json'));
    synth([
      ['kept', {}],
      ['gone', {}],
    ]);
    expect(synth([['kept', {}]]).removed).toBeUndefined();
  });

  // Issue 27: a scratch variant run in the folder added its objects to the stack's record.
  test('is neither read nor written by a program other than the app cdktf.json runs', () => {
    synth([
      ['kept', {}],
      ['gone', {}],
    ]);
    const written = record();
    writeFileSync(join(dir(), 'cdktf.json'), JSON.stringify({ language: 'typescript', app: 'npx tsx main.ts' }));
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(synth([['scratch', {}]]).removed).toBeUndefined();
      expect(stderr).toHaveBeenCalledWith(
        expect.stringMatching(
          /is not the app cdktf\.json runs \(main\.ts\): cdktf-homelab\.record\.json is left as it is/,
        ),
      );
    } finally {
      stderr.mockRestore();
    }
    expect(record()).toBe(written);
  });

  test('is not kept by an app writing elsewhere (Testing.app() in a project folder)', () => {
    const elsewhere = () => {
      const stack = new TerraformStack(Testing.app(), 'lab');
      const cluster = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] });
      new ProxmoxMetricServer(stack, 'mm', { cluster, id: 'mm', type: 'graphite', server: '10.0.0.5', port: 2003 });
      return JSON.parse(Testing.synth(stack));
    };
    elsewhere();
    expect(existsSync(join(dir(), 'cdktf-homelab.record.json'))).toBe(false);
  });

  // Issue 29 item 4: a refused construct declares nothing; written, the record would plan its object's removal.
  test("is left as it was by a synth that fails with the app's problems, every one of them listed", () => {
    synth([
      ['kept', {}],
      ['one', {}],
      ['two', {}],
    ]);
    const written = record();
    expect(() =>
      synth([
        ['kept', {}],
        ['one', { port: 0 }],
        ['two', { server: 'a b' }],
      ]),
    ).toThrow(/^2 problems in 2 constructs:\nlab\/one: port must be .*\nlab\/two: server must be /);
    expect(record()).toBe(written);
  });

  test('a file that is not a record fails the synth naming it, rather than forgetting what it held', () => {
    writeFileSync(join(dir(), 'cdktf-homelab.record.json'), '{"stacks": [}');
    expect(() => synth([['kept', {}]])).toThrow(
      /cdktf-homelab\.record\.json is not JSON .*restore it from version control/,
    );
  });
});
