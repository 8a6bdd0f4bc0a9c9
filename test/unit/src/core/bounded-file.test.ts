/**
 * readBoundedFile on real files, pipes and devices: a regular file is read whole, a pipe written in pieces is read
 * to its end, and neither a FIFO whose writer never writes nor a device that never ends holds the caller past its
 * bounds.
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readBoundedFile, UnboundedFile } from '../../../../src/core/bounded-file';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bounded-file-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const fifo = (): string => {
  const file = path.join(dir, 'fifo');
  expect(spawnSync('mkfifo', [file]).status).toBe(0);
  return file;
};

test('a regular file is read whole, through a link', () => {
  fs.writeFileSync(path.join(dir, 'f'), 'abc');
  fs.symlinkSync('f', path.join(dir, 'link'));
  expect(readBoundedFile(path.join(dir, 'link'), 3, 1000).toString()).toBe('abc');
});

test('a regular file past the cap is refused', () => {
  fs.writeFileSync(path.join(dir, 'f'), 'abcd');
  expect(() => readBoundedFile(path.join(dir, 'f'), 3, 1000)).toThrow(new UnboundedFile('too-large', `${dir}/f`));
});

test('a pipe written in pieces is read to its end', async () => {
  const file = fifo();
  const writer = spawn('sh', ['-c', `exec >"$1"; printf 'one '; sleep 0.3; printf two`, 'sh', file]);
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(readBoundedFile(file, 100, 5000).toString()).toBe('one two');
  await new Promise((resolve) => writer.on('close', resolve));
});

test('a FIFO whose writer never writes fails at the deadline, not at its writer end', async () => {
  const file = fifo();
  const writer = spawn('sh', ['-c', 'exec >"$1"; exec sleep 30', 'sh', file]);
  try {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    expect(() => readBoundedFile(file, 100, 300)).toThrow(new UnboundedFile('too-slow', file));
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(Date.now() - started).toBeLessThan(2000);
  } finally {
    writer.kill('SIGKILL');
  }
});

test('a FIFO no one writes to reads as empty at once', () => {
  const started = Date.now();
  expect(readBoundedFile(fifo(), 100, 5000).length).toBe(0);
  expect(Date.now() - started).toBeLessThan(1000);
});

test('a device that never ends is refused at the cap', () =>
  expect(() => readBoundedFile('/dev/zero', 1024, 1000)).toThrow(new UnboundedFile('too-large', '/dev/zero')));
