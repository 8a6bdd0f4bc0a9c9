/**
 * A bridge, VLAN or bond on one Proxmox VE node, declared so that a rebuilt node or a hand edit
 * cannot silently change its network. It only stages (/etc/network/interfaces.new); a
 * `ProxmoxNetworkApply` on the node makes the change live, behind a cluster-health gate.
 */
import { Construct } from 'constructs';
import type { InterfaceType, LinuxBondMode, NetworkFieldEntry } from '../../src/pve/network-fields';
import { interfaceRules, interfaceSpec, NETWORK_INTERFACE_PROPS } from '../../src/pve/network-interface';
import { namedInterfaces } from '../../src/pve/network-interface-diff';
import { declareObject } from '../core/declare-object';
import { ManagedObject } from '../core/managed-object';
import { ObjectConstruct } from '../core/object-construct';
import { builtOr } from '../core/problems';
import type { RetiredObject } from '../core/retired-object';
import { ADOPT_PROPS, FORGET_PROPS, targetRule, unresolved, validateProps } from '../core/validate';
import type { ProxmoxCluster } from './cluster';
import { refuseDuplicate, registerStaging } from './network-wiring';

/** Every prop, judged at synth by the kind's rules (src/pve/network-interface.ts). */
const PROPS = {
  ...NETWORK_INTERFACE_PROPS,
  ...ADOPT_PROPS,
  ...FORGET_PROPS,
  cluster: { rule: targetRule('a ProxmoxCluster'), required: true },
};

export interface ProxmoxNetworkInterfaceProps {
  /** The cluster the node belongs to. */
  readonly cluster: ProxmoxCluster;
  /** The node, as PVE names it (e.g. `n2`). Changing it replaces the interface. */
  readonly node: string;
  /**
   * The interface name, at most 15 characters: `vmbr1` for a bridge, `bond0` for a bond (PVE reads
   * only `bond<N>` as bonds), `<device>.<id>`, `vlan<id>` or any name with `vlanRawDevice` and
   * `vlanId` for a VLAN. Changing it replaces the interface.
   */
  readonly iface: string;
  /** The kind of interface. PVE cannot change it in place, so changing it replaces the interface. */
  readonly type: InterfaceType;
  /** Bring the interface up at boot (`auto <iface>`). @default false */
  readonly autostart?: boolean;
  /**
   * A comment kept with the interface in the file. No line may end in whitespace or `\` (ifupdown2
   * would join the next line to it), and `%`, `${` and control characters other than newline are refused.
   *
   * @default - none
   */
  readonly comments?: string;
  /** MTU, 1280 to 65520. @default - unset (the kernel's, usually 1500) */
  readonly mtu?: number;
  /** IPv4 address with prefix, e.g. `10.10.0.2/24`. @default - no IPv4 address */
  readonly cidr?: string;
  /** IPv6 address with prefix, e.g. `fd00:10::2/64`. @default - no IPv6 address */
  readonly cidr6?: string;
  /** IPv4 default gateway; one per node. @default - none */
  readonly gateway?: string;
  /** IPv6 default gateway; one per node. @default - none */
  readonly gateway6?: string;
  /** bridge: the ports, e.g. `["enp2s0"]`; order is not significant. @default - no ports */
  readonly bridgePorts?: string[];
  /** bridge: VLAN-aware. @default false */
  readonly bridgeVlanAware?: boolean;
  /**
   * bridge (VLAN-aware only): VLAN ids and ranges, e.g. `[10, "100-200"]`.
   *
   * @default - unset (PVE uses 2-4094)
   */
  readonly bridgeVids?: Array<string | number>;
  /** vlan: the tag, 1 to 4094. @default - the id in the name (`<device>.<id>`, `vlan<id>`) */
  readonly vlanId?: number;
  /** vlan: the device the VLAN rides on. @default - the device in the name (`<device>.<id>`) */
  readonly vlanRawDevice?: string;
  /** bond: the member NICs; order is not significant. @default - no members */
  readonly slaves?: string[];
  /** bond: Linux bonding mode. @default - unset (PVE uses balance-rr) */
  readonly bondMode?: LinuxBondMode;
  /** bond (active-backup only): the preferred member, one of `slaves`. @default - none */
  readonly bondPrimary?: string;
  /** bond (balance-xor, 802.3ad only): transmit hash policy. @default - unset (the kernel's, layer2) */
  readonly bondXmitHashPolicy?: 'layer2' | 'layer2+3' | 'layer3+4';
  /**
   * Take the interface over when it already existed when the stack first declared it (made by hand, say).
   * PVE has no place for a mark of ownership, so the interface's lifecycle records in the state whether the
   * plan found it: without this prop the apply refuses such a interface, naming it, and destroy leaves it on
   * the node; with it the apply converges it and destroy deletes it (README, Adoption).
   *
   * @default - `true` when the app's context sets `cdktf-homelab:adopt` to true, else false
   */
  readonly adopt?: boolean;
  /**
   * Stop managing the interface and leave it on the node: the next apply drops it from the state only,
   * and deleting the construct afterwards does not delete it either (README, Removing an object).
   *
   * @default false
   */
  readonly forget?: boolean;
}

// Every field of the table is a prop here: a field added without its prop fails to compile.
type PropsMissing = Exclude<NetworkFieldEntry['prop'], keyof ProxmoxNetworkInterfaceProps>;
const everyFieldHasAProp: [PropsMissing] extends [never] ? true : PropsMissing = true;
void everyFieldHasAProp;

/**
 * A bridge, VLAN or bond on one node, staged in the node's pending network config; a
 * `ProxmoxNetworkApply` makes it live.
 */
export class ProxmoxNetworkInterface extends ObjectConstruct {
  private declared?: ManagedObject | RetiredObject;

  /** The Terraform resources behind this interface. */
  get object(): ManagedObject | RetiredObject {
    return builtOr(this, this.declared);
  }

  constructor(scope: Construct, id: string, props: ProxmoxNetworkInterfaceProps) {
    super(scope, id);
    if (!validateProps(this, 'ProxmoxNetworkInterface', PROPS, props, interfaceRules)) return;
    const { cluster, node, iface, type, adopt, forget, ...fields } = props;
    refuseDuplicate(this, { cluster, node, iface });
    const spec = interfaceSpec(node, iface, type, fields);
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
    const references = namedInterfaces(spec)
      .map((named) => named.iface)
      .filter((name) => !unresolved(name));
    registerStaging(this, { cluster, node, iface, object, references });
  }
}
