/**
 * A handler bundle's exit waits for its output: a batch read of 1000 metric servers prints more
 * than a pipe takes at once, and exiting before the rest was written cut the JSON Terraform parses.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { buildSync } from 'esbuild';
import { exitWhenWritten } from '../../../../src/core/handler-cli';

const tick = () => new Promise((resolve) => setImmediate(resolve));

test('a handler exits only after a slow reader has taken all of its output', async () => {
  const waiting: Array<() => void> = [];
  const reader = new Writable({ highWaterMark: 16, write: (_chunk, _encoding, done) => void waiting.push(done) });
  const exits: number[] = [];
  reader.write('x'.repeat(100_000));
  exitWhenWritten(reader, 0, (code) => exits.push(code));
  await tick();
  expect(exits).toEqual([]);
  while (waiting.length > 0) {
    waiting.shift()?.();
    await tick();
  }
  expect(exits).toEqual([0]);
});

// An audit (2026-12-05): a request whose 101 answer took its socket never settled; the event loop drained and
// the handler exited 0, so Terraform recorded an apply and a destroy that never ran.
test('a run left waiting on a promise nothing settles exits 1, saying so', () => {
  const dir = mkdtempSync(join(tmpdir(), 'homelab-exit-'));
  try {
    const entry = join(dir, 'entry.ts');
    writeFileSync(
      entry,
      `import { main } from ${JSON.stringify(join(__dirname, '../../../../src/core/handler-cli'))};
       import { widgetDomain } from ${JSON.stringify(join(__dirname, 'fake-domain'))};
       const domain = widgetDomain({ live: new Map(), calls: [] });
       main({ ...domain, connect: () => new Promise(() => undefined) });`,
    );
    const bundle = join(dir, 'handler.js');
    buildSync({ entryPoints: [entry], bundle: true, platform: 'node', outfile: bundle, logLevel: 'silent' });
    const input = JSON.stringify({ target: { shelf: 'a' }, spec: { id: 'w', size: 1 } });
    const run = spawnSync(process.execPath, [bundle, 'widget', 'apply'], { input, encoding: 'utf8', timeout: 20_000 });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(
      'widget apply: ended unfinished (it was left waiting on nothing); what it did is unknown',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
