/**
 * The wall time of one network apply on real time: the bundled handler, as Terraform runs it,
 * reloading three nodes whose reload tasks each take 2 s on the fake PVE, polled once a second.
 * The floor is 3 × 2 s; what is above it is the poll granularity, the gates and process start. The staged
 * `vmbr9` is no interface of a stack's, so the spec says `reloadForeignChanges`: without it the apply refuses
 * it (as it has since foreign staged changes are refused) and the bench measured nothing.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startPveSimulator } from '../src/simulator/pve/server';
import { makeCert } from '../test/support/tls';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const NODES = ['n1', 'n2', 'n3'];
const RELOAD_MS = 2000;

const main = async () => {
  const cert = makeCert();
  const fake = await startPveSimulator({ tls: { key: cert.key, cert: cert.cert }, nodes: NODES });
  for (const node of NODES) {
    fake.setInterfacesFiles(node, {
      staged: `${fake.interfacesFiles(node).running}auto vmbr9\niface vmbr9 inet manual\n`,
    });
    fake.setReload(node, { durationMs: RELOAD_MS });
  }
  const env = {
    ...process.env,
    BENCH_TOKEN: 'root@pam!homelab=fake-secret-0000',
    HOMELAB_TARGET: JSON.stringify({ endpoints: [fake.url], tokenEnv: 'BENCH_TOKEN', caFile: cert.certFile }),
    HOMELAB_SPEC: JSON.stringify({ nodes: NODES, timeoutSeconds: 30, reloadForeignChanges: true }),
  };
  const started = process.hrtime.bigint();
  const { stderr } = await run(process.execPath, [join(ROOT, 'build/handlers/pve.js'), 'network-apply', 'apply'], {
    env,
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await fake.stop();
  cert.cleanup();
  console.log(stderr.trimEnd());
  console.log(`network apply, ${NODES.length} nodes x ${RELOAD_MS / 1000} s reload: ${seconds.toFixed(2)} s wall`);
};

void main();
