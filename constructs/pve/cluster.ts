/**
 * The connection to a Proxmox VE cluster. It holds where to connect and how to trust the members,
 * and only the names of the variables that hold the API tokens (one, or a read one beside the
 * write one): a stack can never leak a token.
 */
import { Construct } from 'constructs';
import type { PropsOf } from '../../src/core/fields';
import { CLUSTER_FIELDS, CLUSTER_PROPS, clusterRules, type PveTarget, pveTargetOf } from '../../src/pve/target';
import { unknownYet, validateProps } from '../core/validate';
import { addressName } from '../core/object-address';
import { builtOr } from '../core/problems';
import { noteTarget } from '../core/tombstones';

// Every prop comes from the target's declaration (src/pve/target.ts), each with its doc comment and default.
export interface ProxmoxClusterProps extends PropsOf<typeof CLUSTER_FIELDS> {}

/**
 * A Proxmox VE cluster reached through its members' API endpoints; its API token stays in an
 * environment variable.
 */
export class ProxmoxCluster extends Construct {
  private settings?: PveTarget;

  /** The connection settings handlers receive; no secret in it. */
  get target(): PveTarget {
    return builtOr(this, this.settings);
  }

  constructor(scope: Construct, id: string, props: ProxmoxClusterProps) {
    super(scope, id);
    if (!validateProps(this, 'ProxmoxCluster', CLUSTER_PROPS, props, clusterRules)) return;
    const target = pveTargetOf(props, (value) => !unknownYet(value));
    this.settings = target;
    noteTarget(this, addressName(this), { domain: 'pve', settings: { ...target } });
  }
}
