/**
 * The library packed as a user gets it, once per jest run: `npm pack` of a copy of the working tree without its
 * build output, so prepack's build starts from the sources and never rewrites the build/ that test files in other
 * workers are running. The package and cdktn e2e files install the same tarball. Under .ci/run, whose two passes
 * test copies of one tree, it is once per CI run: the pack (tsc's build of dist/, 25-60 s of a pass under load) is
 * made by the pass that asks first, and both passes install that tarball.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { runCommand } from './cdktf-project';
import { runDir, withRunLock } from './run-shared';

const ROOT = join(__dirname, '..', '..');
/** Build output and local state that a fresh checkout does not have. */
const NOT_SOURCES = ['node_modules', 'build', 'dist', 'cdktf.out', '.git'];
/** How long a file waits for another's pack: a build, seconds on a quiet machine, about a minute on a loaded one. */
const PACK_WAIT_MS = 300_000;
/** Set by .ci/run for both passes: the folder where the run's one tarball is packed. */
const PACK_DIR_ENV = 'CDKTF_HOMELAB_PACK_DIR';

export interface Packed {
  readonly tarball: string;
  /** Wall seconds of the pack, when this call made it. */
  readonly seconds?: number;
}

/** Packs a copy of the tree into `dest`, failing with npm's output. */
const packInto = async (dest: string, env: NodeJS.ProcessEnv): Promise<Packed> => {
  const stage = mkdtempSync(join(tmpdir(), 'homelab-pack-'));
  try {
    const excludes = NOT_SOURCES.map((dir) => `--exclude=./${dir}`).join(' ');
    const script = `tar -C "$1" ${excludes} -cf - . | tar -C "$2" -xf -`;
    const copy = await runCommand('bash', ['-euo', 'pipefail', '-c', script, 'copy', ROOT, stage], ROOT, env);
    if (copy.code !== 0) throw new Error(`copying the tree to pack it failed\n${copy.stderr}`);
    symlinkSync(join(ROOT, 'node_modules'), join(stage, 'node_modules'));
    const packed = await runCommand('npm', ['pack', '--silent', '--pack-destination', dest], stage, env);
    if (packed.code !== 0) throw new Error(`npm pack exited ${packed.code}\n${packed.stdout}\n${packed.stderr}`);
    return { tarball: join(dest, packed.stdout.trim().split('\n').pop() ?? ''), seconds: packed.seconds };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
};

/** The run's tarball copied into `dest` (packed by the first file that asks), or a pack of this file's own. */
export const packedLibrary = async (dest: string, env: NodeJS.ProcessEnv): Promise<Packed> => {
  const dir = process.env[PACK_DIR_ENV] || runDir();
  if (dir === undefined) return packInto(dest, env);
  const record = join(dir, 'packed.json');
  const shared = await withRunLock(dir, 'pack', PACK_WAIT_MS, async (): Promise<Packed> => {
    if (existsSync(record)) return { tarball: (JSON.parse(readFileSync(record, 'utf8')) as Packed).tarball };
    const made = await packInto(dir, env);
    writeFileSync(record, JSON.stringify(made));
    return made;
  });
  const tarball = join(dest, basename(shared.tarball));
  copyFileSync(shared.tarball, tarball);
  return { ...shared, tarball };
};
