/**
 * A project folder for a record test: each test runs in a fresh temporary folder holding a cdktf.json
 * whose app is the running program, so synths there keep the stacks' record (record-file.ts) and no
 * test sees another's.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RECORD_FILE } from '../../../../src/core/object-record';

/** Registers the folder's set-up and clean-up; `dir()` is the current test's folder. */
export const recordProject = (prefix: string) => {
  const home = process.cwd();
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    // The app cdktf.json runs is this program: the record is kept for the app alone (record-file.ts).
    writeFileSync(join(dir, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: `node ${process.argv[1]}` }));
    process.chdir(dir);
  });
  afterEach(() => {
    process.chdir(home);
    rmSync(dir, { recursive: true, force: true });
  });
  return { dir: () => dir, recordFile: () => join(dir, RECORD_FILE) };
};
