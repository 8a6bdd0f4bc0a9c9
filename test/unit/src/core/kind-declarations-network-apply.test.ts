/**
 * Issue 29 item 1 for the network apply: one declaration (src/pve/network-apply.ts NETWORK_APPLY_FIELDS) gives
 * the props API.md lists (the computed fields left out: no prop sets them), the spec and identity the construct
 * synthesizes, and the boundary's schemas, which refuse a path no field declares. A field dropped from one form
 * fails here by name.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Testing, TerraformStack } from 'cdktf';
import { ProxmoxCluster } from '../../../../constructs/pve/cluster';
import { ProxmoxNetworkApply } from '../../../../constructs/pve/network-apply';
import { ProxmoxNetworkInterface } from '../../../../constructs/pve/network-interface';
import { parseAs } from '../../../../src/core/parse';
import { NETWORK_APPLY_FIELDS, networkApplyIdentity, networkApplySpec } from '../../../../src/pve/network-apply';
import { parsedEntry } from '../../constructs/batch-apply';

const ROOT = join(__dirname, '..', '..', '..', '..');

const documented = (name: string): string[] => {
  const section = readFileSync(join(ROOT, 'API.md'), 'utf8').split(`## ${name}\n`)[1]?.split('\n## ')[0] ?? '';
  return [...section.matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1] ?? '');
};

const FIELDS: Readonly<
  Record<string, { readonly prop?: false; readonly spec?: unknown; readonly identity?: boolean }>
> = NETWORK_APPLY_FIELDS;

/** A stack whose apply sets every prop, none to its default, over one interface on each node. */
const synthesized = () => {
  const stack = new TerraformStack(Testing.app(), 'test');
  const cluster = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] });
  for (const node of ['n1', 'n2'])
    new ProxmoxNetworkInterface(stack, `br-${node}`, { cluster, node, iface: 'vmbr1', type: 'bridge' });
  new ProxmoxNetworkApply(stack, 'net', {
    cluster,
    nodes: ['n2', 'n1'],
    timeoutSeconds: 12,
    reloadForeignChanges: true,
  });
  const json = JSON.parse(Testing.synth(stack));
  return {
    spec: parsedEntry(json, 'pve', 'net').spec,
    identity: JSON.parse(json.resource.terraform_data.net_lifecycle.input).identity,
  };
};

describe('the network apply is one declaration', () => {
  test("API.md's ProxmoxNetworkApplyProps lists every field a prop sets, and the construct's own", () => {
    const props = Object.keys(FIELDS).filter((prop) => FIELDS[prop]?.prop !== false);
    expect(documented('ProxmoxNetworkApplyProps').sort()).toEqual([...props, 'cluster', 'forget'].sort());
  });

  test('the synthesized spec carries every spec field and parses at the boundary; the identity its fields', () => {
    const { spec, identity } = synthesized();
    expect(Object.keys(parseAs(networkApplySpec, spec, 'spec')).sort()).toEqual(
      Object.keys(FIELDS)
        .filter((prop) => FIELDS[prop]?.spec !== undefined && prop !== 'removing')
        .sort(),
    );
    expect(spec).toMatchObject({ nodes: ['n2', 'n1'], timeoutSeconds: 12, reloadForeignChanges: true });
    expect(spec.interfaces).toEqual({ n1: ['vmbr1'], n2: ['vmbr1'] });
    expect(parseAs(networkApplyIdentity, identity, 'identity')).toEqual({ nodes: ['n2', 'n1'] });
  });

  test('the boundary refuses a path no field declares', () => {
    const spec = { nodes: ['n1'], timeoutSeconds: 30, reloadForeignChanges: false, extra: 1 };
    expect(() => parseAs(networkApplySpec, spec, 'spec')).toThrow('spec.extra: is not a field of a network apply spec');
  });
});
