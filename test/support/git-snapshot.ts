/**
 * The working tree as a git repository a user could clone: its files (tracked and untracked, minus what .gitignore
 * leaves out, so no build output) committed once and tagged `v<version>`, so `npm install git+file://...#v<version>`
 * goes through npm's real git path (clone, install the dev dependencies, prepare, pack) on exactly the tree under test.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

export interface GitSnapshot {
  /** The repository's folder. */
  readonly dir: string;
  /** The tag, `v` and package.json's version, that the README's git install names. */
  readonly tag: string;
}

/** Commits the tree's files into a new repository at `dir` and tags the commit with the package's version. */
export const gitSnapshot = (dir: string): GitSnapshot => {
  const git = (cwd: string, ...args: string[]): string =>
    execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@localhost', ...args], {
      cwd,
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    });
  const files = git(ROOT, 'ls-files', '-z', '--cached', '--others', '--exclude-standard', '--deduplicate')
    .split('\0')
    .filter((file) => file !== '' && existsSync(join(ROOT, file)));
  mkdirSync(dir, { recursive: true });
  const copy = 'tar -C "$1" --null -T - -cf - | tar -C "$2" -xf -';
  execFileSync('bash', ['-euo', 'pipefail', '-c', copy, 'copy', ROOT, dir], { input: files.join('\0') });
  git(dir, 'init', '--quiet');
  git(dir, 'add', '--all');
  git(dir, 'commit', '--quiet', '--no-verify', '-m', 'snapshot of the tree under test');
  const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  git(dir, 'tag', `v${version}`);
  return { dir, tag: `v${version}` };
};
