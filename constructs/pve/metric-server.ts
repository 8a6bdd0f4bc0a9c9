/**
 * A cluster metric server (a section of /etc/pve/status.cfg), declared so that a rebuilt node or a
 * restored config cannot silently stop the cluster shipping metrics. Secrets stay in env vars.
 */
import { Construct } from 'constructs';
import { encodeBase64Json, fieldsOf, type MetricServerType } from '../../src/pve/metric-fields';
import { METRIC_SERVER_PROPS, metricServerRules, type MetricServerSpec } from '../../src/pve/metric-server';
import { declareObject } from '../core/declare-object';
import type { ManagedObject } from '../core/managed-object';
import { ObjectConstruct } from '../core/object-construct';
import type { RetiredObject } from '../core/retired-object';
import { OBJECT_PROPS, targetRule, validateProps } from '../core/validate';
import type { ProxmoxCluster } from './cluster';

/** Every prop, judged at synth by the kind's rules (src/pve/metric-server.ts). */
const PROPS = {
  ...METRIC_SERVER_PROPS,
  ...OBJECT_PROPS,
  cluster: { rule: targetRule('a ProxmoxCluster'), required: true },
};

export interface ProxmoxMetricServerProps {
  /** The cluster to configure. */
  readonly cluster: ProxmoxCluster;
  /** The section id, a pve-configid (a letter, then letters, digits, `-`, `_`). Changing it replaces the server. */
  readonly id: string;
  /** The plugin. Create-only on PVE: changing it replaces the server. */
  readonly type: MetricServerType;
  /** Address of the metrics target (IP or DNS name). */
  readonly server: string;
  /** Port of the metrics target, 1 to 65536. */
  readonly port: number;
  /** Keep the section but stop sending. @default - unset (PVE sends) */
  readonly disable?: boolean;
  /** graphite, influxdb: UDP MTU, 512 to 65536. @default - unset (PVE uses 1500) */
  readonly mtu?: number;
  /** graphite, influxdb: socket or HTTP timeout in seconds. @default - unset (PVE uses 1) */
  readonly timeout?: number;
  /** graphite: root path of the metrics, e.g. `proxmox.lab`. @default - unset (PVE uses "proxmox") */
  readonly path?: string;
  /** graphite: transport. @default - unset (PVE uses "udp") */
  readonly proto?: 'udp' | 'tcp';
  /** influxdb: transport; http and https use the v2 API. @default - unset (PVE uses "udp") */
  readonly influxdbproto?: 'udp' | 'http' | 'https';
  /** influxdb (http/https): organization. @default - unset (PVE uses "proxmox") */
  readonly organization?: string;
  /** influxdb (http/https): bucket. @default - unset (PVE uses "proxmox") */
  readonly bucket?: string;
  /** influxdb: API path prefix, for a proxy in front of InfluxDB. @default - unset */
  readonly apiPathPrefix?: string;
  /** influxdb: largest batch in bytes. @default - unset (PVE uses 25000000) */
  readonly maxBodySize?: number;
  /** influxdb: verify the target's certificate. @default - unset (PVE verifies) */
  readonly verifyCertificate?: boolean;
  /**
   * influxdb: environment variable holding the InfluxDB token. The token is write-only on PVE, so
   * it is sent on every apply of this server and never compared; bump `tokenVersion` to rotate.
   *
   * @default - no token is managed
   */
  readonly tokenEnv?: string;
  /**
   * influxdb: bump to re-send the token after changing it. Set, it adds a `<name>_resend` resource
   * whose creation applies this server alone (so the token is sent once more when it is first set).
   *
   * @default - unset: the token is sent whenever the server is applied
   */
  readonly tokenVersion?: number;
  /** opentelemetry: protocol to the collector. @default - unset (PVE uses "https") */
  readonly otelProtocol?: 'http' | 'https';
  /** opentelemetry: URL path. @default - unset (PVE uses "/v1/metrics") */
  readonly otelPath?: string;
  /** opentelemetry: timeout in seconds, 1 to 10. @default - unset (PVE uses 5) */
  readonly otelTimeout?: number;
  /** opentelemetry: verify the collector's certificate. @default - unset (PVE verifies) */
  readonly otelVerifySsl?: boolean;
  /** opentelemetry: largest batch in bytes, at least 1024. @default - unset (PVE uses 10000000) */
  readonly otelMaxBodySize?: number;
  /** opentelemetry: resource attributes added to every metric. @default - unset */
  readonly otelResourceAttributes?: Record<string, string>;
  /** opentelemetry: compression. @default - unset (PVE uses "gzip") */
  readonly otelCompression?: 'none' | 'gzip';
  /**
   * opentelemetry: environment variable holding the request headers as a JSON object, e.g.
   * `{"Authorization":"Bearer ..."}`. Compared with the live value without ever printing either.
   *
   * @default - no headers
   */
  readonly otelHeadersEnv?: string;
  /**
   * Retire the server: the next apply deletes it from the cluster (through the same destroy
   * handler `terraform destroy` runs) and drops it from the state; after that the construct can
   * be removed. Deleting the construct does the same when the stack's record is kept (README,
   * Removing an object). Needs Terraform 1.9 or newer.
   *
   * @default false
   */
  readonly retired?: boolean;
  /**
   * Stop managing the server and leave it on the cluster: the next apply drops it from the state
   * only. Deleting the construct afterwards does not delete the server either (README, Removing an
   * object). Needs Terraform 1.7 or newer.
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
   * @default - `true` when the app's context sets `cdktf-homelab:adopt` to true, else false
   */
  readonly adopt?: boolean;
}

/**
 * A cluster metric server (a section of /etc/pve/status.cfg): graphite, influxdb or opentelemetry.
 */
export class ProxmoxMetricServer extends ObjectConstruct {
  /** The Terraform resources behind this server. */
  readonly object: ManagedObject | RetiredObject;

  constructor(scope: Construct, id: string, props: ProxmoxMetricServerProps) {
    super(scope, id);
    validateProps(this, 'ProxmoxMetricServer', PROPS, props, metricServerRules);
    const spec = specOf(props);
    this.object = declareObject(this, {
      kind: 'metric-server',
      targetConstruct: props.cluster,
      target: { ...props.cluster.target },
      identity: { id: props.id, type: props.type },
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

/** The handler's spec: PVE parameter names, env var names for the secrets. */
const specOf = (props: ProxmoxMetricServerProps): MetricServerSpec => {
  const options: Record<string, string | number | boolean> = {};
  for (const field of fieldsOf(props.type)) {
    const value = props[field.prop];
    if (value === undefined) continue;
    options[field.param] = typeof value === 'object' ? encodeBase64Json(value) : value;
  }
  return {
    id: props.id,
    type: props.type,
    server: props.server,
    port: props.port,
    options,
    ...(props.tokenEnv === undefined ? {} : { tokenEnv: props.tokenEnv }),
    ...(props.otelHeadersEnv === undefined ? {} : { otelHeadersEnv: props.otelHeadersEnv }),
  };
};
