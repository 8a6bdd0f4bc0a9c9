/**
 * The working tree as a git repository a user could clone: its files (tracked and untracked, minus what .gitignore
 * leaves out, so no build output) committed once on its default branch and, like a fresh clone of main, with no tag
 * (issue 28: the README's install named a tag a clone of main does not have), so `npm install git+file://...` goes
 * through npm's real git path (clone, install the dev dependencies, prepare, pack) on exactly the tree under test.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

export interface GitSnapshot {
  /** The repository's folder. */
  readonly dir: string;
}

/** Commits the tree's files into a new repository at `dir`, tagging nothing. */
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
  return { dir };
};
