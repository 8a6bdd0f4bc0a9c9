/**
 * `npx cdktf-homelab root-helper` prints the root helper the README installs for a non-root SSH user
 * (issue 27 item 8): exactly the text the handlers of the same build send a root login, so the version a
 * request names is the installed one's (`npm run bundle` first, as npm test does).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT_HELPER_VERSION, rootHelperText } from '../../src/linux/root-helper';

const BIN = join(__dirname, '..', '..', 'bin', 'cdktf-homelab.js');

test('prints the helper of this build, and nothing else', () => {
  const printed = execFileSync(process.execPath, [BIN, 'root-helper'], { encoding: 'utf8' });
  expect(printed).toBe(rootHelperText());
  expect(printed).toContain(`\nVERSION=${ROOT_HELPER_VERSION}\n`);
});

test('takes no arguments: it fails naming the command, printing no helper', () => {
  const run = spawnSync(process.execPath, [BIN, 'root-helper', '/usr/local/sbin'], { encoding: 'utf8' });
  expect(run.status).toBe(1);
  expect(run.stdout).toBe('');
  expect(run.stderr).toMatch(/^root-helper: nothing written: it takes no arguments/);
});
