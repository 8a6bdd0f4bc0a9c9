/**
 * A renamed construct (README, Removing an object): the record holds an object the code no longer declares of
 * the same kind, target and identity as one it now declares under a new name, so the synth moves its lifecycle
 * (`moved`) instead of planning its deletion (`removed`) and a new lifecycle. Before, the tombstone deleted a
 * renamed metric server and the new lifecycle, recording the plan's read of it, refused it forever as not created
 * by this stack (an audit, 2026-12-05); a unit or Repo was deleted and created again. Every family, one rule.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Testing, TerraformStack } from 'cdktf';
import { KubeCluster } from '../../../../constructs/kube/cluster';
import { KubeRepo } from '../../../../constructs/kube/kube-repo';
import { SshHost } from '../../../../constructs/linux/ssh-host';
import { SystemdUnit } from '../../../../constructs/linux/systemd-unit';
import { ProxmoxCluster } from '../../../../constructs/pve/cluster';
import { ProxmoxMetricServer } from '../../../../constructs/pve/metric-server';
import { ProxmoxNetworkInterface } from '../../../../constructs/pve/network-interface';
import { recordProject } from './record-project';

const project = recordProject('homelab-renames-');
const record = () => JSON.parse(readFileSync(project.recordFile(), 'utf8')).stacks.lab.objects;

/** What the app declares: each object's construct id and what names it on its target. */
interface Declared {
  readonly servers?: ReadonlyArray<readonly [construct: string, id: string, type?: 'graphite' | 'influxdb']>;
  readonly bridges?: ReadonlyArray<readonly [construct: string, iface: string]>;
  readonly units?: ReadonlyArray<readonly [construct: string, name: string]>;
  readonly repos?: ReadonlyArray<readonly [construct: string, key: string]>;
}

/** One synth of stack `lab` in a fresh app, as `cdktf synth` runs the app once. */
const synth = ({ servers = [], bridges = [], units = [], repos = [] }: Declared) => {
  const stack = new TerraformStack(Testing.app({ outdir: join(project.dir(), 'cdktf.out') }), 'lab');
  const cluster = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] });
  const host = new SshHost(stack, 'n2', { host: '10.0.0.2', insecureAcceptAnyHostKey: true });
  const kube = new KubeCluster(stack, 'home', { kubeconfig: '~/.kube/config' });
  for (const [construct, id, type = 'graphite'] of servers) {
    new ProxmoxMetricServer(stack, construct, { cluster, id, type, server: '10.0.0.5', port: 2003 });
  }
  for (const [construct, iface] of bridges) {
    new ProxmoxNetworkInterface(stack, construct, { cluster, node: 'n1', iface, type: 'bridge' });
  }
  for (const [construct, name] of units) {
    new SystemdUnit(stack, construct, { host, name, content: '[Service]\nExecStart=/bin/true\n' });
  }
  for (const [construct, key] of repos) {
    new KubeRepo(stack, construct, { cluster: kube, namespace: 'ns', key, url: 'https://g/s', identity: `g/${key}` });
  }
  return JSON.parse(Testing.synth(stack));
};

const moved = (from: string, to: string) => ({
  from: `terraform_data.${from}_lifecycle`,
  to: `terraform_data.${to}_lifecycle`,
});

describe('a renamed construct', () => {
  test('of every family moves its lifecycle: no removed block, no object deleted', () => {
    synth({
      servers: [['old', 'srv']],
      bridges: [['oldbr', 'vmbr6']],
      units: [['agent', 'a.service']],
      repos: [['s', 'site']],
    });
    const after = synth({
      servers: [['new', 'srv']],
      bridges: [['newbr', 'vmbr6']],
      units: [['agent2', 'a.service']],
      repos: [['s2', 'site']],
    });
    expect(after.moved).toEqual([
      moved('agent', 'agent2'),
      moved('old', 'new'),
      moved('oldbr', 'newbr'),
      moved('s', 's2'),
    ]);
    expect(after.removed).toBeUndefined();
    expect(record().old).toMatchObject({ state: 'moved', movedTo: 'new', kind: 'metric-server', target: 'pve' });
    expect(record().new).toMatchObject({ state: 'declared' });
  });

  test('keeps its move on every later synth, so a second synth before the apply still moves it', () => {
    synth({ servers: [['old', 'srv']] });
    const first = synth({ servers: [['new', 'srv']] });
    const written = readFileSync(project.recordFile(), 'utf8');
    const second = synth({ servers: [['new', 'srv']] });
    expect(second.moved).toEqual(first.moved);
    expect(readFileSync(project.recordFile(), 'utf8')).toBe(written);
  });

  test('renamed back before the apply moves back, and the first move goes', () => {
    synth({ servers: [['old', 'srv']] });
    synth({ servers: [['new', 'srv']] });
    const back = synth({ servers: [['old', 'srv']] });
    expect(back.moved).toEqual([moved('new', 'old')]);
    expect(back.removed).toBeUndefined();
    expect(record().old).toEqual({
      kind: 'metric-server',
      target: 'pve',
      state: 'declared',
      identity: expect.any(Object),
    });
  });

  test('whose new name is removed later gets a tombstone for each name, as a removal', () => {
    synth({ servers: [['old', 'srv']] });
    synth({ servers: [['new', 'srv']] });
    const gone = synth({ servers: [['other', 'oo']] });
    expect(gone.moved).toBeUndefined();
    expect(gone.removed.map((block: { from: string }) => block.from)).toEqual([
      'terraform_data.new_lifecycle',
      'terraform_data.old_lifecycle',
    ]);
    expect(record().old).toEqual(expect.objectContaining({ state: 'removed' }));
    expect(record().old).not.toHaveProperty('movedTo');
  });

  test('with another identity is a removal and a new object, as before', () => {
    synth({ servers: [['old', 'srv']] });
    const retyped = synth({ servers: [['new', 'srv', 'influxdb']] });
    expect(retyped.moved).toBeUndefined();
    expect(retyped.removed).toEqual([expect.objectContaining({ from: 'terraform_data.old_lifecycle' })]);
  });

  test('a name declared again as itself is not a move target', () => {
    synth({
      servers: [
        ['keep', 'kk'],
        ['gone', 'gg'],
      ],
    });
    synth({ servers: [['keep', 'kk']] });
    // `gone` is declared again, now naming kk's object: it is its own name come back, not a rename of keep.
    const again = synth({ servers: [['gone', 'kk']] });
    expect(again.moved).toBeUndefined();
  });
});
