/**
 * What one object costs a plan: the wall time of a handler read process, as a ratio to a bare
 * `node -e 0` measured in the same run, so a heavier bundle or a slow exit shows as a ratio.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startPveSimulator } from '../src/simulator/pve/server';
import { makeCert } from '../test/support/tls';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const RUNS = Number(process.env.BENCH_RUNS ?? 15);

const timeOnce = async (args: string[], input: string, env: NodeJS.ProcessEnv): Promise<number> => {
  const started = process.hrtime.bigint();
  const child = run(process.execPath, args, { env: { ...process.env, ...env } });
  child.child.stdin?.end(input);
  await child.catch(() => undefined);
  return Number(process.hrtime.bigint() - started) / 1e6;
};

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

const main = async () => {
  const cert = makeCert();
  const fake = await startPveSimulator({ tls: { key: cert.key, cert: cert.cert } });
  fake.setMetricServer('bench', { type: 'graphite', server: '10.0.0.5', port: 2003 });
  const target = JSON.stringify({ endpoints: [fake.url], tokenEnv: 'BENCH_TOKEN', caFile: cert.certFile });
  const spec = JSON.stringify({ id: 'bench', type: 'graphite', server: '10.0.0.5', port: 2003, options: {} });
  const env = { BENCH_TOKEN: 'root@pam!homelab=fake-secret-0000' };
  const cases: Array<[string, string[], string]> = [
    ['node -e 0 (baseline)', ['-e', '0'], ''],
    ['pve bundle, load only', [join(ROOT, 'build/handlers/pve.js')], ''],
    ['linux bundle, load only', [join(ROOT, 'build/handlers/linux.js')], ''],
    [
      'pve metric-server read',
      [join(ROOT, 'build/handlers/pve.js'), 'metric-server', 'read'],
      JSON.stringify({ target, spec }),
    ],
  ];
  const results: Array<[string, number]> = [];
  for (const [label, args, input] of cases) {
    const samples: number[] = [];
    for (let i = 0; i < RUNS; i += 1) samples.push(await timeOnce(args, input, env));
    results.push([label, median(samples)]);
  }
  await fake.stop();
  cert.cleanup();
  const baseline = results[0]?.[1] ?? NaN;
  console.log(`median of ${RUNS} runs each, same machine, same run`);
  for (const [label, ms] of results)
    console.log(`${label.padEnd(28)} ${ms.toFixed(0).padStart(6)} ms  x${(ms / baseline).toFixed(2)}`);
};

void main();
