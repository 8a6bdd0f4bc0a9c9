/**
 * `adopt` on every object construct reaches the handler: in the batch read's query (the plan says
 * whether the object will be adopted) and in the batch apply's entry (the apply may take it over),
 * and an object without it synthesizes the entry text earlier versions wrote.
 */
import { Testing, TerraformStack } from 'cdktf';
import * as z from 'zod/mini';
import { KubeCluster } from '../../../../constructs/kube/cluster';
import { KubeRepo } from '../../../../constructs/kube/kube-repo';
import { SshHost } from '../../../../constructs/linux/ssh-host';
import { SystemdDropIn } from '../../../../constructs/linux/systemd-drop-in';
import { SystemdUnit } from '../../../../constructs/linux/systemd-unit';
import { ProxmoxCluster } from '../../../../constructs/pve/cluster';
import { ProxmoxMetricServer } from '../../../../constructs/pve/metric-server';
import { ProxmoxNetworkInterface } from '../../../../constructs/pve/network-interface';
import { applyBatch } from '../../../../src/core/batch-apply';
import { systemClock } from '../../../../src/core/clock';
import { type ApplyItem, defineKind, type HandlerDomain } from '../../../../src/core/kind';
import { entryOf, queryOf } from '../batch-apply';

const UNIT = '[Service]\nExecStart=/bin/true\n';

/** One object of every kind, each with `adopt` as given. */
const synth = (adopt: boolean | undefined) => {
  const stack = new TerraformStack(Testing.app(), 'test');
  const pve = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] });
  const host = new SshHost(stack, 'n2', { host: '10.0.0.2', insecureAcceptAnyHostKey: true });
  const kube = new KubeCluster(stack, 'home', { kubeconfig: '~/.kube/config' });
  new ProxmoxMetricServer(stack, 'graphite', {
    cluster: pve,
    id: 'gr',
    type: 'graphite',
    server: 'h',
    port: 2003,
    adopt,
  });
  new ProxmoxNetworkInterface(stack, 'vmbr9', { cluster: pve, node: 'n1', iface: 'vmbr9', type: 'bridge', adopt });
  const unit = new SystemdUnit(stack, 'agent', { host, name: 'agent.service', content: UNIT, adopt });
  const template = new SystemdUnit(stack, 'probe', { host, name: 'probe@.service', content: UNIT, adopt });
  template.instance('tty9', { adopt });
  new SystemdDropIn(stack, 'limits', { unit, name: '10-limits', content: '[Service]\nNice=5\n', adopt });
  new KubeRepo(stack, 'site', {
    cluster: kube,
    namespace: 'ns',
    key: 'site',
    url: 'https://g/s',
    identity: 'g/s',
    adopt,
  });
  return JSON.parse(Testing.synth(stack));
};

const OBJECTS = {
  pve: ['graphite', 'vmbr9'],
  n2: ['agent', 'probe', 'probe-tty9', 'limits'],
  home: ['site'],
} as const;

describe('adopt', () => {
  test.each(Object.entries(OBJECTS))(
    'on %s reaches the read query and the apply entry of every object',
    (label, names) => {
      const json = synth(true);
      const query = queryOf(json, label);
      for (const name of names) {
        expect(JSON.parse(query[name] as string)).toMatchObject({ adopt: true });
        expect(JSON.parse(entryOf(json, label, name).text)).toMatchObject({ adopt: true });
      }
    },
  );

  test('left out or false, the entries are the text earlier versions wrote, so an upgrade replaces no apply', () => {
    const unset = synth(undefined);
    expect(synth(false)).toEqual(unset);
    for (const [label, names] of Object.entries(OBJECTS)) {
      for (const name of names) {
        expect(entryOf(unset, label, name).text).not.toContain('adopt');
        expect(queryOf(unset, label)[name]).not.toContain('adopt');
      }
    }
  });

  test('the context key cdktf-homelab:adopt adopts every object that does not say adopt: false', () => {
    const stack = new TerraformStack(Testing.app({ context: { 'cdktf-homelab:adopt': true } }), 'test');
    const pve = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] });
    const server = { cluster: pve, type: 'graphite', server: 'h', port: 2003 } as const;
    new ProxmoxMetricServer(stack, 'taken', { ...server, id: 'taken' });
    new ProxmoxMetricServer(stack, 'kept', { ...server, id: 'kept', adopt: false });
    const json = JSON.parse(Testing.synth(stack));
    expect(JSON.parse(entryOf(json, 'pve', 'taken').text)).toMatchObject({ adopt: true });
    expect(entryOf(json, 'pve', 'kept').text).not.toContain('adopt');
  });

  test('a value that is not a boolean fails at synth naming the construct and the prop', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const cluster = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] });
    const props = { cluster, id: 'gr', type: 'graphite', server: 'h', port: 2003, adopt: 'yes' } as never;
    new ProxmoxMetricServer(stack, 'graphite', props);
    expect(() => Testing.synth(stack)).toThrow(/test\/graphite: adopt must be a boolean, got "yes"$/);
  });

  test('the batch apply hands the handler each item with its adopt', async () => {
    const seen: Array<[string, boolean | undefined]> = [];
    const domain: HandlerDomain<null, { shelf: string }> = {
      target: z.object({ shelf: z.string() }),
      describe: () => 'shelf',
      connect: async () => null,
      close: async () => undefined,
      kinds: { widget: async () => defineKind({ spec: z.unknown(), identity: z.unknown() } as never) },
      applyAll: async (_session, items: readonly ApplyItem<null>[]) => {
        for (const item of items) seen.push([item.name, item.adopt]);
        return new Map(items.map((item) => [item.name, undefined]));
      },
    };
    const env = {
      HOMELAB_TARGET: '{"shelf":"a"}',
      HOMELAB_DRIFTED: 'mine,theirs',
      HOMELAB_OBJECT_0: '{"kind":"widget","spec":{}}',
      HOMELAB_OBJECT_1: '{"kind":"widget","spec":{},"adopt":true}',
    };
    await applyBatch(domain, env, { env: {}, log: () => undefined, clock: systemClock });
    expect(seen).toEqual([
      ['mine', false],
      ['theirs', true],
    ]);
  });
});
