/**
 * What a systemd unit costs against a real host: the wall time of a handler read and apply
 * process over SSH, as ratios to a bare `node -e 0` measured in the same run.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { canonicalJson } from '../src/core/canonical';
import { startSystemdHost } from '../test/support/systemd-host';
import { unitSpec } from '../test/support/unit-host';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const HANDLER = join(ROOT, 'build/handlers/linux.js');

const timed = async (args: string[], env: NodeJS.ProcessEnv, input = ''): Promise<number> => {
  const started = process.hrtime.bigint();
  const child = run(process.execPath, args, { env: { ...process.env, ...env } });
  child.child.stdin?.end(input);
  await child;
  return Number(process.hrtime.bigint() - started) / 1e6;
};

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

const main = async () => {
  const booting = process.hrtime.bigint();
  const host = await startSystemdHost({ stock: true });
  const bootMs = Number(process.hrtime.bigint() - booting) / 1e6;
  try {
    const target = canonicalJson({
      host: host.host,
      port: host.port,
      user: 'root',
      hostKey: host.hostKeyFingerprint,
      privateKeyEnv: 'BENCH_SSH_KEY',
      readyTimeoutSeconds: 20,
      keepaliveIntervalSeconds: 15,
      sudo: false,
    });
    const spec = (n: number) =>
      canonicalJson(
        unitSpec(
          'bench.service',
          `[Unit]\nDescription=bench ${n}\n\n[Service]\nExecStart=/bin/sleep infinity\n\n` +
            '[Install]\nWantedBy=multi-user.target\n',
        ),
      );
    const env = { BENCH_SSH_KEY: host.privateKey };
    const samples: Record<string, number[]> = {
      'node -e 0 (baseline)': [],
      'read (in sync)': [],
      'apply (file changed, restart)': [],
      'apply (in sync, no-op)': [],
    };
    for (let i = 0; i < RUNS; i += 1) {
      samples['node -e 0 (baseline)']?.push(await timed(['-e', '0'], {}));
      samples['apply (file changed, restart)']?.push(
        await timed([HANDLER, 'systemd-unit', 'apply'], { ...env, HOMELAB_TARGET: target, HOMELAB_SPEC: spec(i) }),
      );
      samples['apply (in sync, no-op)']?.push(
        await timed([HANDLER, 'systemd-unit', 'apply'], { ...env, HOMELAB_TARGET: target, HOMELAB_SPEC: spec(i) }),
      );
      samples['read (in sync)']?.push(
        await timed([HANDLER, 'systemd-unit', 'read'], env, JSON.stringify({ target, spec: spec(i) })),
      );
    }
    const baseline = median(samples['node -e 0 (baseline)'] ?? []);
    console.log(`systemd host booted in ${bootMs.toFixed(0)} ms; median of ${RUNS} runs each, same run`);
    for (const [label, values] of Object.entries(samples)) {
      const ms = median(values);
      console.log(`${label.padEnd(32)} ${ms.toFixed(0).padStart(6)} ms  x${(ms / baseline).toFixed(2)}`);
    }
  } finally {
    await host.stop();
  }
};

void main();
