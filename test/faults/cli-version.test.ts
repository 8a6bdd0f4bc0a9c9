/**
 * `npx cdktf-homelab --version` names what a user runs (issue 28 item 1): a build of main said only
 * 0.2.0 while it held unreleased work. The version alone for a build of its release tag, else the
 * version with the commit the bundles were built from (`npm run bundle` first, as npm test does).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();

test('names the version and, off a release tag, the commit the bundles were built from', () => {
  const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const printed = execFileSync(process.execPath, [join(ROOT, 'bin', 'cdktf-homelab.js'), '--version'], {
    encoding: 'utf8',
  }).trim();
  const match = /^cdktf-homelab (\d+\.\d+\.\d+)(?:\+g([0-9a-f]{12})(\.dirty)?)?$/.exec(printed);
  expect(match?.[1]).toBe(version);
  const released = git('tag', '--points-at', 'HEAD').split('\n').includes(`v${version}`);
  if (match?.[2] === undefined) expect(released).toBe(true);
  else expect(git('rev-parse', '--short=12', 'HEAD')).toBe(match[2]);
});
