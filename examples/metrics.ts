/**
 * The demo stack: one metric server of each type on a Proxmox VE cluster. It targets the embedded
 * fake PVE by default, or the cluster in PROXMOX_VE_ENDPOINT (comma-separated members).
 */
import { App, TerraformStack } from 'cdktf';
import type { Construct } from 'constructs';
import { ProxmoxCluster, ProxmoxMetricServer } from '../index';
import { type ExampleMint, mintOf } from './mint-env';

export const DEMO_ENDPOINT = 'https://127.0.0.1:18006';

export interface MetricsStackProps {
  readonly endpoints: string[];
  readonly caFile?: string;
  readonly insecure?: boolean;
  /** The influxdb bucket; the e2e test changes it to prove a changed prop converges. */
  readonly bucket?: string;
  /** The graphite path; the e2e test removes it to prove an unset prop is cleared. */
  readonly graphitePath?: string;
  /** Retire the opentelemetry server; the e2e test proves the next apply deletes it. */
  readonly retireOtel?: boolean;
  /** Bumped to rotate the InfluxDB token. */
  readonly tokenVersion?: number;
  /** A read-only token's variable for plans; the e2e test plans with it alone. */
  readonly readTokenEnv?: string;
  /** Mint a token per run for these users; the e2e test counts the mints. */
  readonly mint?: ExampleMint;
}

export class MetricsStack extends TerraformStack {
  constructor(scope: Construct, id: string, props: MetricsStackProps) {
    super(scope, id);
    const pve = new ProxmoxCluster(this, 'pve', {
      endpoints: props.endpoints,
      caFile: props.caFile,
      insecure: props.insecure,
      readTokenEnv: props.readTokenEnv,
      mint: props.mint,
    });
    new ProxmoxMetricServer(this, 'graphite', {
      cluster: pve,
      id: 'lab-graphite',
      type: 'graphite',
      server: '10.0.0.5',
      port: 2003,
      proto: 'udp',
      ...(props.graphitePath === undefined ? {} : { path: props.graphitePath }),
    });
    new ProxmoxMetricServer(this, 'influx', {
      cluster: pve,
      id: 'lab-influx',
      type: 'influxdb',
      server: '10.0.0.5',
      port: 8089,
      influxdbproto: 'https',
      organization: 'lab',
      bucket: props.bucket ?? 'pve',
      tokenEnv: 'INFLUX_TOKEN',
      tokenVersion: props.tokenVersion,
    });
    new ProxmoxMetricServer(this, 'otel', {
      cluster: pve,
      id: 'lab-otel',
      type: 'opentelemetry',
      server: '10.0.0.6',
      port: 4318,
      otelProtocol: 'https',
      otelHeadersEnv: 'OTEL_HEADERS',
      otelResourceAttributes: { 'deployment.environment': 'lab' },
      retired: props.retireOtel,
    });
  }
}

/** The stack as `cdktf synth` builds it; the e2e test sets HOMELAB_EXAMPLE_* to vary it. */
const synth = (): void => {
  const app = new App();
  const env = process.env;
  new MetricsStack(app, 'metrics', {
    endpoints: (env.PROXMOX_VE_ENDPOINT ?? DEMO_ENDPOINT).split(',').map((e) => e.trim()),
    caFile: env.PROXMOX_VE_CA_FILE,
    insecure: env.PROXMOX_VE_INSECURE === 'true',
    bucket: env.HOMELAB_EXAMPLE_BUCKET,
    graphitePath:
      env.HOMELAB_EXAMPLE_GRAPHITE_PATH === '' ? undefined : (env.HOMELAB_EXAMPLE_GRAPHITE_PATH ?? 'proxmox.lab'),
    retireOtel: env.HOMELAB_EXAMPLE_RETIRE_OTEL === 'true',
    tokenVersion:
      env.HOMELAB_EXAMPLE_TOKEN_VERSION === undefined ? undefined : Number(env.HOMELAB_EXAMPLE_TOKEN_VERSION),
    readTokenEnv: env.HOMELAB_EXAMPLE_READ_TOKEN_ENV,
    mint: mintOf(env.HOMELAB_EXAMPLE_MINT),
  });
  app.synth();
};

if (require.main === module) synth();
