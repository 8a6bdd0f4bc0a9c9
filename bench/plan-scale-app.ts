/**
 * The stack bench/plan-scale.ts and bench/apply-scale.ts synthesize, declared as a user would: BENCH_N
 * graphite metric servers on one cluster (BENCH_KIND=pve, BENCH_PVE_ENDPOINT, BENCH_PVE_CA_FILE), BENCH_N
 * systemd units on one host (BENCH_KIND=linux, BENCH_SSH_HOST/PORT/HOST_KEY, key in BENCH_SSH_KEY) or
 * BENCH_N Repos on one cluster (BENCH_KIND=kube, BENCH_KUBECONFIG, BENCH_KUBE_NAMESPACE).
 */
import { App, TerraformStack } from 'cdktf';
import { KubeCluster, KubeRepo, ProxmoxCluster, ProxmoxMetricServer, SshHost, SystemdUnit } from '../index';
import { benchUnit, kubeRepo, metricServer, range, SCALE_STACK } from './plan-scale-objects';

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
} else if (env.BENCH_KIND === 'kube') {
  const cluster = new KubeCluster(stack, 'kube', { kubeconfig: env.BENCH_KUBECONFIG });
  const namespace = env.BENCH_KUBE_NAMESPACE ?? '';
  for (const i of range(n)) new KubeRepo(stack, `repo${i}`, { cluster, ...kubeRepo(i, namespace) });
} else {
  throw new Error(`BENCH_KIND must be pve, linux or kube, got ${JSON.stringify(env.BENCH_KIND)}`);
}
app.synth();
