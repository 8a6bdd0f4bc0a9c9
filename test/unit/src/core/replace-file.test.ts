/**
 * A file written whole or not at all: replaced by a rename, created by a hard link that never lands on an
 * existing path, and no temporary file left behind either way, failed or not.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFile, replaceFile } from '../../../../src/core/replace-file';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'homelab-replace-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('createFile writes a new file whole, with the mode asked, and nothing else', () => {
  const umask = process.umask(0o022);
  try {
    createFile(join(dir, 'stack.ts'), 'new stack\n', 0o666);
  } finally {
    process.umask(umask);
  }
  expect(readFileSync(join(dir, 'stack.ts'), 'utf8')).toBe('new stack\n');
  expect(statSync(join(dir, 'stack.ts')).mode & 0o777).toBe(0o644);
  expect(readdirSync(dir)).toEqual(['stack.ts']);
});

// An audit (2026-12-05): discover wrote its stack in place, so a write cut short left half a file behind.
test('createFile never lands on an existing file: EEXIST, the file as it was, no temporary file', () => {
  writeFileSync(join(dir, 'stack.ts'), 'edited by hand\n');
  expect(() => createFile(join(dir, 'stack.ts'), 'new stack\n', 0o666)).toThrow(/EEXIST/);
  expect(readFileSync(join(dir, 'stack.ts'), 'utf8')).toBe('edited by hand\n');
  expect(readdirSync(dir)).toEqual(['stack.ts']);
});

test('a replacement that cannot be placed leaves the path as it was and no temporary file', () => {
  mkdirSync(join(dir, 'stack.ts'));
  writeFileSync(join(dir, 'stack.ts', 'inside'), 'x');
  expect(() => replaceFile(join(dir, 'stack.ts'), 'new stack\n', 0o666)).toThrow();
  expect(readdirSync(dir)).toEqual(['stack.ts']);
  expect(readdirSync(join(dir, 'stack.ts'))).toEqual(['inside']);
});
