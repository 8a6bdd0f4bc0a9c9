/**
 * The objects bench/plan-scale.ts and bench/apply-scale.ts declare, shared by the stack app and the
 * benches, so a bench can put exactly the declared objects on the fake PVE and the systemd host (the
 * timed plan is clean) or find exactly them there after an apply (the timed apply did its work).
 */

import { digestOf } from '../src/core/canonical';
import { RESTART_ON_DIR } from '../src/linux/state-paths';

/** How the bench app and terraform reach a systemd host: the app's variables and the key's. */
export const unitHostEnv = (host: {
  readonly host: string;
  readonly port: number;
  readonly hostKeyFingerprint: string;
  readonly privateKey: string;
}) => ({
  appEnv: {
    BENCH_KIND: 'linux',
    BENCH_SSH_HOST: host.host,
    BENCH_SSH_PORT: String(host.port),
    BENCH_SSH_HOST_KEY: host.hostKeyFingerprint,
  },
  env: { BENCH_SSH_KEY: host.privateKey },
});

/** The one stack the bench app synthesizes. */
export const SCALE_STACK = 'scale';

/** Graphite server `i`: the plainest metric server, so the read cost is the pattern's, not a type's. */
export const metricServer = (i: number) => ({
  id: `bench${i}`,
  type: 'graphite' as const,
  server: `10.0.${Math.floor(i / 256)}.${i % 256}`,
  port: 2003,
});

/** Unit `i`: a service that keeps running, enabled at boot. */
export const benchUnit = (i: number) => ({
  name: `bench-${i}.service`,
  content:
    `[Unit]\nDescription=bench unit ${i}\n\n[Service]\nExecStart=/bin/sleep infinity\n\n` +
    '[Install]\nWantedBy=multi-user.target\n',
});

/** Repo `i`: anonymous https clone, default refresh, so the apply is one create per Repo. */
export const kubeRepo = (i: number, namespace: string) => ({
  namespace,
  key: `bench-${i}`,
  url: `https://git.example/me/bench-${i}.git`,
  identity: `git.example/me/bench-${i}`,
});

export const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

/**
 * Shell that writes units 0..n-1 where SystemdUnit puts them and starts them, with the restartOn record an
 * apply leaves (the stack's mark of ownership, README, Adoption), so they read as applied by the stack;
 * their names hold no quote.
 */
export const installUnitsScript = (n: number, directory = '/etc/systemd/system'): string => {
  const units = range(n).map(benchUnit);
  const writes = units.map((u) => `printf '%s' '${u.content}' > ${directory}/${u.name}`);
  const records = units.map((u) => `printf '%s\\n' ${digestOf([])} > ${RESTART_ON_DIR}/${u.name}`);
  const names = units.map((u) => u.name).join(' ');
  return [
    ...writes,
    `mkdir -p ${RESTART_ON_DIR}`,
    ...records,
    'systemctl daemon-reload',
    `systemctl enable --now ${names}`,
  ].join('\n');
};

/** `N bare terraform_data` as Terraform JSON: the floor a plan of N resources pays with no handler. */
export const bareStack = (n: number): unknown => ({
  terraform: {},
  resource: { terraform_data: Object.fromEntries(range(n).map((i) => [`bare_${i}`, { input: String(i) }])) },
});
