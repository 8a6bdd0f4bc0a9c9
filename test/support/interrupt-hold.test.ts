/**
 * The file that keeps the Ctrl-C test's inner run busy when the SIGINT comes (interrupt-run.test.ts): on a quiet,
 * warm machine its two real files ended within the test's 60 s, so the signal found no run (`kill ESRCH`, CI on
 * 08df288). It holds what the issue saw left behind: a child that ignores SIGTERM (as npm's git-install children
 * did) and a folder in the run's temp directory. Skipped unless the Ctrl-C test runs it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Set by interrupt-run.test.ts for its inner run only. */
const holding = process.env.CDKTF_HOMELAB_INTERRUPT_HOLD === '1';

jest.setTimeout(600_000);

(holding ? test : test.skip)('holds a stubborn child and a temp folder until the run is interrupted', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'homelab-hold-'));
  writeFileSync(join(folder, 'payload'), 'x'.repeat(1 << 20));
  const child = spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000);"], {
    stdio: 'ignore',
  });
  child.unref();
  await new Promise((resolve) => setTimeout(resolve, 540_000));
});
