/**
 * Makes the staged network changes of some Proxmox VE nodes live, one node at a time, each reload
 * behind a cluster-health gate before and after it. Reloading a node while a member is out is how
 * an outage completes, so a degraded cluster, a failed reload or an unknown outcome stops the chain;
 * a node holding someone else's staged changes is not reloaded unless the apply says it may.
 */
import { Construct } from 'constructs';
import { identityOf, type PropsOf, propTableOf, specOf } from '../../src/core/fields';
import { NETWORK_APPLY_FIELDS } from '../../src/pve/network-apply';
import { declareObject } from '../core/declare-object';
import { ManagedObject } from '../core/managed-object';
import { ObjectConstruct } from '../core/object-construct';
import { FORGET_PROPS, targetProp, validateProps } from '../core/validate';
import { ProxmoxCluster } from './cluster';
import { registerApply, removedInterfaces, type StagingObject } from './network-wiring';

/** Every prop, judged at synth by the kind's declaration (src/pve/network-apply.ts). */
const PROPS = {
  ...propTableOf(NETWORK_APPLY_FIELDS),
  ...FORGET_PROPS,
  cluster: targetProp(ProxmoxCluster, 'a ProxmoxCluster'),
};

// The apply's own props come from its declaration (src/pve/network-apply.ts), each with its doc comment.
export interface ProxmoxNetworkApplyProps extends PropsOf<typeof NETWORK_APPLY_FIELDS> {
  /** The cluster the nodes belong to. */
  readonly cluster: ProxmoxCluster;
  /**
   * Stop managing this apply without the reload its destroy runs: the next apply drops it from the
   * state only, and deleting the construct afterwards reloads nothing either (README, Removing an
   * object). Interfaces staged on its nodes then wait for a reload of your own.
   *
   * Known at synth: a Terraform value is refused, since synth drops the object from the state instead of declaring it.
   *
   * @default false
   */
  readonly forget?: boolean;
}

/**
 * A plan shows, per node, how many lines wait in /etc/network/interfaces.new (never their text) and
 * names the interfaces among them that this stack does not declare there: an apply refuses to make
 * those live unless `reloadForeignChanges` is set. `terraform destroy` reloads the nodes after this
 * stack's interfaces have staged their removal.
 */
export class ProxmoxNetworkApply extends ObjectConstruct {
  constructor(scope: Construct, id: string, props: ProxmoxNetworkApplyProps) {
    super(scope, id);
    if (!validateProps(this, 'ProxmoxNetworkApply', PROPS, props)) return;
    const nodes = [...props.nodes];
    const staged: StagingObject[] = [];
    const object = declareObject(this, {
      kind: 'network-apply',
      targetConstruct: props.cluster,
      target: { ...props.cluster.target },
      identity: identityOf(NETWORK_APPLY_FIELDS, { nodes }),
      spec: () =>
        specOf(NETWORK_APPLY_FIELDS, {
          ...props,
          nodes,
          interfaces: interfacesByNode(nodes, staged),
          ...removedInterfaces(this, props.cluster, nodes),
        }),
      follows: () => staged.map((staging) => staging.object),
      forget: props.forget,
    });
    this.declared = object;
    if (!(object instanceof ManagedObject)) return;
    registerApply(this, { cluster: props.cluster, nodes, object, staged });
  }
}

/** Per node, the names of the interfaces the stack stages there, sorted: whatever else is staged is someone else's. */
const interfacesByNode = (nodes: readonly string[], staged: readonly StagingObject[]) =>
  Object.fromEntries(
    nodes.map((node) => [node, [...new Set(staged.filter((s) => s.node === node).map((s) => s.iface))].sort()]),
  );
