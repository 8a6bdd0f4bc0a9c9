/**
 * Where the stacks' record lives and how a synth rewrites it: under a lock, read, changed, and
 * replaced whole with the mode it had. Two synths at once each read the other's entries (without the
 * lock, the later write dropped what the earlier added), a reader never sees half a file, and a
 * record kept 0600 stays 0600 (issue 26 item 4, issue 27 item 2).
 */
import { closeSync, constants, existsSync, openSync, readFileSync, realpathSync, rmSync, writeSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { IConstruct } from 'constructs';
import { parseRecord, RECORD_FILE, type Record_, recordText } from '../../src/core/object-record';
import { readRecordText } from '../../src/core/record-text';
import { isRecord } from '../../src/core/records';
import { replaceFile } from '../../src/core/replace-file';

/** How long a synth waits for another to release the record (a synth holds it for milliseconds). */
const LOCK_WAIT_MS = 30_000;
const RETRY_MS = 20;

/**
 * The record's path: beside cdktf.json in the working directory, where cdktf-cli and cdktn-cli run
 * the app, when the app writes its output there too and is the app cdktf.json runs. Elsewhere (a
 * test's `Testing.app()`, which writes to a temporary folder) no record is kept and nothing is
 * planned for removal; so too for another program run in the folder (a scratch variant of the app
 * had added its objects to the stack's record: issue 27), which is told so once.
 */
export const recordPath = (app: IConstruct): string | undefined => {
  const project = process.cwd();
  const outdir = 'outdir' in app ? app.outdir : undefined;
  const config = join(project, 'cdktf.json');
  if (typeof outdir !== 'string' || !existsSync(config)) return undefined;
  const below = relative(project, resolve(project, outdir));
  if (below.startsWith('..') || isAbsolute(below)) return undefined;
  const runs = appFile(project, config);
  const running = process.argv[1];
  if (runs !== undefined && (running === undefined || realFile(running) !== realFile(runs))) {
    process.stderr.write(
      `cdktf-homelab: ${running ?? 'this program'} is not the app cdktf.json runs (${relative(project, runs)}): ` +
        `${RECORD_FILE} is left as it is, and no removal is planned\n`,
    );
    return undefined;
  }
  return join(project, RECORD_FILE);
};

/** The file cdktf.json's `app` command runs (`npx tsx main.ts`: main.ts), when a word of it names one. */
const appFile = (project: string, config: string): string | undefined => {
  let command: unknown;
  try {
    const parsed: unknown = JSON.parse(readFileSync(config, 'utf8'));
    command = isRecord(parsed) ? parsed.app : undefined;
  } catch {
    return undefined;
  }
  if (typeof command !== 'string') return undefined;
  const file = command
    .split(/\s+/)
    .reverse()
    .find((word) => /\.[cm]?[jt]sx?$/.test(word));
  return file === undefined ? undefined : resolve(project, file);
};

const realFile = (file: string): string => (existsSync(file) ? realpathSync(file) : resolve(file));

/**
 * Reads the record at `path`, gives it to `change` and writes what it returns when the text differs,
 * all while holding `<path>.lock`. `change` throwing leaves the file as it was.
 */
export const updateRecord = (path: string, change: (record: Record_) => Record_): void => {
  const release = lock(`${path}.lock`);
  try {
    const text = readRecordText(path);
    const written = recordText(change(parseRecord(text, path)));
    if (written !== text) replaceFile(path, written, { keepMode: true });
  } finally {
    release();
  }
};

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = constants;

/** Takes the lock file (its holder's pid inside), taking over one whose holder has exited. */
const lock = (file: string): (() => void) => {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      const fd = openSync(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (error) {
      if (codeOf(error) !== 'EEXIST') throw error;
    }
    const holder = holderOf(file);
    if (holder !== undefined && !alive(holder)) rmSync(file, { force: true });
    else if (Date.now() > deadline) {
      throw new Error(
        `${file} has been held by another synth${holder === undefined ? '' : ` (pid ${holder})`} for ` +
          `${LOCK_WAIT_MS / 1000} s: wait for it to end, or remove the file if no synth is running`,
      );
    } else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, RETRY_MS);
  }
};

/** A system error's code (`EEXIST`, `EPERM`), when `error` has one. */
const codeOf = (error: unknown): unknown => (isRecord(error) ? error.code : undefined);

const holderOf = (file: string): number | undefined => {
  try {
    const pid = Number(readFileSync(file, 'utf8'));
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
};

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return codeOf(error) === 'EPERM';
  }
};
