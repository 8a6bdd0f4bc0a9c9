/**
 * A Kubernetes read's cold start: the wall time of `kube.js batch read` (two Repos, one list) against a real API
 * server, as a ratio to `node -e 0` in the same run; the target is at most 2x. Not a test: speed lives here.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startKubeApiServer } from '../test/support/kube-apiserver';
import { CR_VERSION } from '../test/support/kube-crds';

const run = promisify(execFile);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const BUNDLE = join(process.cwd(), 'build', 'handlers', 'kube.js');

const timeOnce = async (args: string[], input: string): Promise<number> => {
  const started = process.hrtime.bigint();
  const child = run(process.execPath, args);
  child.child.stdin?.end(input);
  const { stdout } = await child;
  if (args.length > 2 && !stdout.includes('"a.in_sync"')) throw new Error(`unexpected answer: ${stdout}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
};

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

const main = async () => {
  const kube = await startKubeApiServer();
  try {
    const spec = (key: string) =>
      JSON.stringify({
        kind: 'kube-repo',
        spec: {
          namespace: kube.namespace,
          key,
          version: CR_VERSION,
          url: `https://git.example/me/${key}.git`,
          identity: `git.example/me/${key}`,
          credentials: [],
          refreshInterval: '5m',
        },
      });
    const query = JSON.stringify({
      '.target': JSON.stringify({ name: 'bench', kubeconfig: kube.kubeconfig }),
      a: spec('a'),
      b: spec('b'),
    });
    const bare: number[] = [];
    const read: number[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      bare.push(await timeOnce(['-e', '0'], ''));
      read.push(await timeOnce([BUNDLE, 'batch', 'read'], query));
    }
    const b = median(bare);
    const r = median(read);
    const ratio = (r / b).toFixed(2);
    console.log(`node -e 0: ${b.toFixed(0)} ms; kube.js batch read (2 Repos): ${r.toFixed(0)} ms; ratio ${ratio}`);
  } finally {
    await kube.stop();
  }
};

void main();
