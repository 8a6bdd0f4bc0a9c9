/**
 * Issue 16 item 16: a member answering `[[[[…]]]]` within the 16 MiB cap cost the handler about
 * 0.9 GB and 4 s to parse, past `timeoutSeconds`. The bundled PVE handler runs a batch read against
 * such a member; its peak memory is measured in the process itself (a preload prints maxRSS).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalJson } from '../../src/core/canonical';
import { BATCH } from '../../src/core/protocol';
import { DEFAULT_MAX_BODY_BYTES } from '../../src/core/http/members';
import { useFakePveOverTls } from '../support/fake-pve-tls';

jest.setTimeout(120_000);

const BUNDLE = join(__dirname, '..', '..', 'build', 'handlers', 'pve.js');
const TOKEN = { PROXMOX_VE_API_TOKEN: 'root@pam!homelab=fake-secret-0000' };
const TIMEOUT_SECONDS = 3;
/** What a handler process may grow by for one answer: the budget the issue sets. */
const MEMORY_BUDGET_MIB = 64;

const { fake, target } = useFakePveOverTls({
  'root@pam!homelab': { secret: 'fake-secret-0000', privileges: 'modify' },
});
let dir: string;
let preload: string;
beforeAll(() => {
  if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run \`node scripts/bundle-handlers.js\``);
  dir = mkdtempSync(join(tmpdir(), 'homelab-json-depth-'));
  preload = join(dir, 'max-rss.js');
  writeFileSync(
    preload,
    `process.on('exit', () => require('fs').writeSync(2, '\\nmaxRSS ' + process.resourceUsage().maxRSS + '\\n'));`,
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  readonly code: number | null;
  readonly stderr: string;
  readonly ms: number;
  readonly maxRssMiB: number;
}

/** `node pve.js batch read` as the external data source runs it, for one metric server. */
const batchRead = (): Promise<Run> =>
  new Promise((resolve, reject) => {
    const query = {
      [BATCH.target]: canonicalJson({ ...target(), timeoutSeconds: TIMEOUT_SECONDS }),
      m: canonicalJson({
        kind: 'metric-server',
        spec: { id: 'm1', type: 'graphite', server: 's', port: 2003, options: {} },
      }),
    };
    const started = Date.now();
    const child = spawn(process.execPath, ['--require', preload, BUNDLE, 'batch', 'read'], {
      env: { PATH: process.env.PATH, XDG_RUNTIME_DIR: dir, ...TOKEN },
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.resume();
    child.on('error', reject);
    child.on('close', (code) => {
      const rss = /maxRSS (\d+)/.exec(stderr);
      resolve({ code, stderr, ms: Date.now() - started, maxRssMiB: rss ? Number(rss[1]) / 1024 : Infinity });
    });
    child.stdin.end(JSON.stringify(query));
  });

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

test.each([
  ['1e6 deep (2 MB)', 1_000_000],
  ['8e6 deep (16 MB, just under the cap)', 8_000_000],
])('an answer nested %s costs the handler under 64 MiB and ends within timeoutSeconds', async (_, depth) => {
  const body = nested(depth);
  expect(Buffer.byteLength(body)).toBeLessThan(DEFAULT_MAX_BODY_BYTES);
  const baseline = await batchRead();
  expect(baseline.code).toBe(0);

  fake().misbehave('GET', /metrics\/server/, { kind: 'raw', status: 200, contentType: 'application/json', body }, 5);
  const hostile = await batchRead();
  console.log(
    `nested ${depth}: ${hostile.ms} ms, maxRSS ${hostile.maxRssMiB.toFixed(0)} MiB ` +
      `(a normal read: ${baseline.ms} ms, ${baseline.maxRssMiB.toFixed(0)} MiB)`,
  );
  expect(hostile.stderr).toMatch(/not PVE's JSON envelope \(application\/json, \d+ bytes, starting "\[\[\[/);
  expect(hostile.maxRssMiB - baseline.maxRssMiB).toBeLessThan(MEMORY_BUDGET_MIB);
  expect(hostile.ms).toBeLessThan(TIMEOUT_SECONDS * 1000);
});
