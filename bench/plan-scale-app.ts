/**
 * The stack bench/plan-scale.ts synthesizes and plans, declared as a user would: BENCH_N graphite
 * metric servers on one cluster (BENCH_KIND=pve, BENCH_PVE_ENDPOINT, BENCH_PVE_CA_FILE) or BENCH_N
 * systemd units on one host (BENCH_KIND=linux, BENCH_SSH_HOST/PORT/HOST_KEY, key in BENCH_SSH_KEY).
 */
import { App, TerraformStack } from 'cdktf';
import { ProxmoxCluster, ProxmoxMetricServer, SshHost, SystemdUnit } from '../index';
import { benchUnit, metricServer, range, SCALE_STACK } from './plan-scale-objects';

const env = process.env;
const app = new App();
const stack = new TerraformStack(app, SCALE_STACK);
const n = Number(env.BENCH_N);
if (env.BENCH_KIND === 'pve') {
  const cluster = new ProxmoxCluster(stack, 'pve', {
    endpoints: [env.BENCH_PVE_ENDPOINT ?? ''],
    caFile: env.BENCH_PVE_CA_FILE,
  });
  for (const i of range(n)) new ProxmoxMetricServer(stack, `ms${i}`, { cluster, ...metricServer(i) });
} else if (env.BENCH_KIND === 'linux') {
  const host = new SshHost(stack, 'host', {
    host: env.BENCH_SSH_HOST ?? '',
    port: Number(env.BENCH_SSH_PORT),
    hostKey: env.BENCH_SSH_HOST_KEY,
    privateKeyEnv: 'BENCH_SSH_KEY',
  });
  for (const i of range(n)) new SystemdUnit(stack, `unit${i}`, { host, ...benchUnit(i) });
} else {
  throw new Error(`BENCH_KIND must be pve or linux, got ${JSON.stringify(env.BENCH_KIND)}`);
}
app.synth();
