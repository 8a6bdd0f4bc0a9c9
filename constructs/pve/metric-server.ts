/**
 * A cluster metric server (a section of /etc/pve/status.cfg), declared so that a rebuilt node or a
 * restored config cannot silently stop the cluster shipping metrics. Secrets stay in env vars.
 */
import { Construct } from 'constructs';
import { identityOf, type PropsOf, specOf } from '../../src/core/fields';
import { METRIC_SERVER_FIELDS } from '../../src/pve/metric-fields';
import { metricServerRules } from '../../src/pve/metric-server';
import { declareObject } from '../core/declare-object';
import { terraformForm } from '../core/encode';
import { ObjectConstruct } from '../core/object-construct';
import { OBJECT_PROPS, targetProp, validateProps } from '../core/validate';
import { ProxmoxCluster } from './cluster';

/** Every prop, judged at synth by the kind's declaration (src/pve/metric-fields.ts) and its rules. */
const PROPS = {
  ...METRIC_SERVER_FIELDS,
  ...OBJECT_PROPS,
  cluster: targetProp(ProxmoxCluster, 'a ProxmoxCluster'),
};

// The server's own fields come from its declaration (src/pve/metric-fields.ts), each with its doc comment.
export interface ProxmoxMetricServerProps extends PropsOf<typeof METRIC_SERVER_FIELDS> {
  /** The cluster to configure. */
  readonly cluster: ProxmoxCluster;
  /**
   * Retire the server: the next apply deletes it from the cluster (through the same destroy
   * handler `terraform destroy` runs) and drops it from the state; after that the construct can
   * be removed. Deleting the construct does the same when the stack's record is kept (README,
   * Removing an object). Needs Terraform 1.9 or newer.
   *
   * Known at synth: a Terraform value is refused, since synth declares the removal instead of the object.
   *
   * @default false
   */
  readonly retired?: boolean;
  /**
   * Stop managing the server and leave it on the cluster: the next apply drops it from the state
   * only. Deleting the construct afterwards does not delete the server either (README, Removing an
   * object). Needs Terraform 1.7 or newer.
   *
   * Known at synth: a Terraform value is refused, since synth drops the object from the state instead of declaring it.
   *
   * @default false
   */
  readonly forget?: boolean;
  /**
   * Take the server over when it already existed when the stack first declared it (made by hand, say).
   * PVE has no place for a mark of ownership, so the server's lifecycle records in the state whether the
   * plan found it: without this prop the apply refuses such a server, naming it, and destroy leaves it on
   * the cluster; with it the apply converges it and destroy deletes it (README, Adoption).
   *
   * Known at synth: a Terraform value is refused, since synth decides from it what the apply may take over and what
   * destroy may remove.
   *
   * @default - `true` when the app's context sets `cdktf-homelab:adopt` to true, else false
   */
  readonly adopt?: boolean;
}

/**
 * A cluster metric server (a section of /etc/pve/status.cfg): graphite, influxdb or opentelemetry.
 */
export class ProxmoxMetricServer extends ObjectConstruct {
  constructor(scope: Construct, id: string, props: ProxmoxMetricServerProps) {
    super(scope, id);
    if (!validateProps(this, 'ProxmoxMetricServer', PROPS, props, metricServerRules)) return;
    const spec = specOf(METRIC_SERVER_FIELDS, props, terraformForm);
    this.declared = declareObject(this, {
      kind: 'metric-server',
      targetConstruct: props.cluster,
      target: { ...props.cluster.target },
      identity: identityOf(METRIC_SERVER_FIELDS, props),
      unique: { prop: 'id', value: props.id, among: 'metric servers' },
      spec: { ...spec },
      // The token is write-only: a read cannot see it rotated, so a tokenVersion bump re-sends it.
      ...(props.tokenVersion === undefined ? {} : { resendOn: props.tokenVersion }),
      retired: props.retired,
      forget: props.forget,
      adopt: props.adopt,
    });
  }
}
