/**
 * Remembers which member last answered, across handler processes, so a plan does not wait on the
 * same dead member once per object. It lives where only the user can write (a 0700 directory of
 * theirs under $XDG_RUNTIME_DIR or the temp dir), is read without following links and only as a
 * small regular file, and anything odd (link, FIFO, device, garbage, wrong owner) means no memory.
 */
import { lstatSync, mkdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { digestOf } from '../canonical';
import { readRegularFile } from '../regular-file';
import { replaceFile } from '../replace-file';

export interface LastGoodStore {
  load(): string | undefined;
  save(endpoint: string): void;
}

/** A store that remembers nothing: every call starts with the declared order. */
export const noMemory: LastGoodStore = { load: () => undefined, save: () => undefined };

const MAX_BYTES = 4096;

/** $XDG_RUNTIME_DIR (private to the user by its spec) when set, else the temp directory. */
export const stateBase = (env: NodeJS.ProcessEnv = process.env): string => {
  const runtime = env.XDG_RUNTIME_DIR;
  return runtime !== undefined && isAbsolute(runtime) ? runtime : tmpdir();
};

/** The member list's memory under `base`; `scope` keeps services apart (`pve`, `kube`). */
export const lastGoodStore = (scope: string, endpoints: readonly string[], base = stateBase()): LastGoodStore => {
  const name = `${scope}-${digestOf(endpoints).slice(0, 16)}.last-good`;
  return {
    load: () => {
      const dir = privateDir(base);
      const text = dir === undefined ? undefined : readSmallFile(join(dir, name));
      return text !== undefined && endpoints.includes(text.trim()) ? text.trim() : undefined;
    },
    save: (endpoint) => {
      const dir = privateDir(base);
      if (dir !== undefined && Buffer.byteLength(endpoint) <= MAX_BYTES) saveQuietly(join(dir, name), endpoint);
    },
  };
};

/** `<base>/cdktf-homelab-<uid>`, created 0700 if missing, or undefined unless it is provably ours alone. */
export const privateDir = (base: string): string | undefined => {
  const uid = process.getuid?.();
  if (uid === undefined || !safeParent(base, uid)) return undefined;
  const dir = join(base, `cdktf-homelab-${uid}`);
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch {
    // it exists already (or cannot be made): the lstat below decides
  }
  try {
    const stat = lstatSync(dir);
    return stat.isDirectory() && stat.uid === uid && (stat.mode & 0o777) === 0o700 ? dir : undefined;
  } catch {
    return undefined;
  }
};

/** A parent nobody else can rename our directory in: owned by us or root, and sticky if shared. */
const safeParent = (base: string, uid: number): boolean => {
  try {
    const stat = statSync(base);
    const shared = (stat.mode & 0o022) !== 0;
    return stat.isDirectory() && (stat.uid === uid || stat.uid === 0) && (!shared || (stat.mode & 0o1000) !== 0);
  } catch {
    return false;
  }
};

/** The text of a regular file of ours of at most MAX_BYTES, opened without following a link. */
const readSmallFile = (path: string): string | undefined => {
  try {
    const { bytes, stat } = readRegularFile(path, MAX_BYTES);
    return stat.uid === process.getuid?.() ? bytes.toString('utf8') : undefined;
  } catch {
    return undefined; // never written, or not a plain file: no memory
  }
};

/** Writes the memory; losing it costs one retry, never the request. */
const saveQuietly = (path: string, text: string): void => {
  try {
    replaceFile(path, text, 0o600);
  } catch {
    // no memory this time
  }
};
