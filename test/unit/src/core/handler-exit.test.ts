/**
 * A handler bundle's exit waits for its output: a batch read of 1000 metric servers prints more
 * than a pipe takes at once, and exiting before the rest was written cut the JSON Terraform parses.
 */
import { Writable } from 'node:stream';
import { exitWhenWritten } from '../../../../src/core/handler-cli';

const tick = () => new Promise((resolve) => setImmediate(resolve));

test('a handler exits only after a slow reader has taken all of its output', async () => {
  const waiting: Array<() => void> = [];
  const reader = new Writable({ highWaterMark: 16, write: (_chunk, _encoding, done) => void waiting.push(done) });
  const exits: number[] = [];
  reader.write('x'.repeat(100_000));
  exitWhenWritten(reader, 0, (code) => exits.push(code));
  await tick();
  expect(exits).toEqual([]);
  while (waiting.length > 0) {
    waiting.shift()?.();
    await tick();
  }
  expect(exits).toEqual([0]);
});
