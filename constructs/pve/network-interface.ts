/**
 * A bridge, VLAN or bond on one Proxmox VE node, declared so that a rebuilt node or a hand edit
 * cannot silently change its network. It only stages (/etc/network/interfaces.new); a
 * `ProxmoxNetworkApply` on the node makes the change live, behind a cluster-health gate.
 */
import { Construct } from 'constructs';
import { type PropsOf, specOf } from '../../src/core/fields';
import { isRecord } from '../../src/core/records';
import { NETWORK_INTERFACE_FIELDS } from '../../src/pve/network-fields';
import { interfaceRules } from '../../src/pve/network-interface';
import { dependedOn } from '../../src/pve/network-interface-diff';
import { declareObject } from '../core/declare-object';
import { terraformForm } from '../core/encode';
import { ManagedObject } from '../core/managed-object';
import { ObjectConstruct } from '../core/object-construct';
import { ADOPT_PROPS, FORGET_PROPS, targetProp, unresolved, validateProps } from '../core/validate';
import { ProxmoxCluster } from './cluster';
import { refuseDuplicate, registerStaging } from './network-wiring';

/** Every prop, judged at synth by the kind's declaration (src/pve/network-fields.ts) and its rules. */
const PROPS = {
  ...NETWORK_INTERFACE_FIELDS,
  ...ADOPT_PROPS,
  ...FORGET_PROPS,
  cluster: targetProp(ProxmoxCluster, 'a ProxmoxCluster'),
};

// The interface's own fields come from its declaration (src/pve/network-fields.ts), each with its doc comment.
export interface ProxmoxNetworkInterfaceProps extends PropsOf<typeof NETWORK_INTERFACE_FIELDS> {
  /** The cluster the node belongs to. */
  readonly cluster: ProxmoxCluster;
  /**
   * Take the interface over when it already existed when the stack first declared it (made by hand, say).
   * PVE has no place for a mark of ownership, so the interface's lifecycle records in the state whether the
   * plan found it: without this prop the apply refuses such a interface, naming it, and destroy leaves it on
   * the node; with it the apply converges it and destroy deletes it (README, Adoption).
   *
   * Known at synth: a Terraform value is refused, since synth decides from it what the apply may take over and what
   * destroy may remove.
   *
   * @default - `true` when the app's context sets `cdktf-homelab:adopt` to true, else false
   */
  readonly adopt?: boolean;
  /**
   * Stop managing the interface and leave it on the node: the next apply drops it from the state only,
   * and deleting the construct afterwards does not delete it either (README, Removing an object).
   *
   * Known at synth: a Terraform value is refused, since synth drops the object from the state instead of declaring it.
   *
   * @default false
   */
  readonly forget?: boolean;
}

/**
 * A bridge, VLAN or bond on one node, staged in the node's pending network config; a
 * `ProxmoxNetworkApply` makes it live.
 */
export class ProxmoxNetworkInterface extends ObjectConstruct {
  constructor(scope: Construct, id: string, props: ProxmoxNetworkInterfaceProps) {
    super(scope, id);
    if (!validateProps(this, 'ProxmoxNetworkInterface', PROPS, props, interfaceRules)) return;
    const { cluster, node, iface, type, adopt, forget } = props;
    refuseDuplicate(this, { cluster, node, iface });
    const spec = specOf(NETWORK_INTERFACE_FIELDS, props, terraformForm);
    const object = declareObject(this, {
      kind: 'network-interface',
      targetConstruct: cluster,
      target: { ...cluster.target },
      identity: { node, iface, type },
      spec: { ...spec },
      adopt,
      forget,
    });
    this.declared = object;
    if (!(object instanceof ManagedObject)) return;
    // The interfaces of the same node this one needs first; a Terraform value orders nothing.
    const references = dependedOn({ iface, type, options: isRecord(spec.options) ? spec.options : {} }).filter(
      (name) => !unresolved(name),
    );
    registerStaging(this, { cluster, node, iface, object, references });
  }
}
