/**
 * The record written by synth (issue 26 item 4, issue 27 item 2): replaced whole, keeping its mode,
 * and two synths at once lose no entry. Before, a plain writeFileSync raced: each synth read the
 * record, added its stack and wrote, and the later write dropped what the earlier had added.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { updateRecord } from '../../../../constructs/core/record-file';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'homelab-record-file-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const entry = { kind: 'metric-server', target: 'pve', state: 'declared' as const };

test('keeps the mode of the record it replaces, whatever the umask', () => {
  const path = join(dir, 'cdktf-homelab.record.json');
  writeFileSync(path, '{"stacks":{}}');
  chmodSync(path, 0o600);
  const umask = process.umask(0o022);
  try {
    updateRecord(path, (record) => ({ stacks: { ...record.stacks, lab: { objects: { a: entry } } } }));
  } finally {
    process.umask(umask);
  }
  expect(statSync(path).mode & 0o777).toBe(0o600);
  expect(JSON.parse(readFileSync(path, 'utf8')).stacks.lab.objects.a).toEqual(entry);
});

test('a change that throws leaves the record as it was, and the lock free', () => {
  const path = join(dir, 'cdktf-homelab.record.json');
  writeFileSync(path, '{"stacks":{}}');
  expect(() =>
    updateRecord(path, () => {
      throw new Error('refused');
    }),
  ).toThrow('refused');
  expect(readFileSync(path, 'utf8')).toBe('{"stacks":{}}');
  updateRecord(path, () => ({ stacks: { lab: { objects: { a: entry } } } }));
  expect(Object.keys(JSON.parse(readFileSync(path, 'utf8')).stacks)).toEqual(['lab']);
});

test('a lock left by a synth that died is taken over', () => {
  const path = join(dir, 'cdktf-homelab.record.json');
  writeFileSync(`${path}.lock`, '2147483646');
  updateRecord(path, () => ({ stacks: { lab: { objects: { a: entry } } } }));
  expect(JSON.parse(readFileSync(path, 'utf8')).stacks.lab.objects.a).toEqual(entry);
});

test('four synths at once, 25 updates each: every entry is kept', async () => {
  const bundle = join(dir, 'record-file.js');
  buildSync({
    entryPoints: [join(__dirname, '../../../../constructs/core/record-file.ts')],
    bundle: true,
    platform: 'node',
    outfile: bundle,
    logLevel: 'silent',
  });
  const path = join(dir, 'cdktf-homelab.record.json');
  const script = `
    const { updateRecord } = require(${JSON.stringify(bundle)});
    const stack = process.argv[1];
    for (let i = 0; i < 25; i++) {
      updateRecord(${JSON.stringify(path)}, (record) => {
        const objects = { ...(record.stacks[stack]?.objects ?? {}), ['o' + i]: ${JSON.stringify(entry)} };
        return { stacks: { ...record.stacks, [stack]: { objects } } };
      });
    }`;
  const runs = ['s1', 's2', 's3', 's4'].map(
    (stack) =>
      new Promise<number | null>((resolve) =>
        spawn(process.execPath, ['-e', script, stack], { stdio: 'inherit' }).on('exit', resolve),
      ),
  );
  expect(await Promise.all(runs)).toEqual([0, 0, 0, 0]);
  const { stacks } = JSON.parse(readFileSync(path, 'utf8'));
  for (const stack of ['s1', 's2', 's3', 's4']) expect(Object.keys(stacks[stack].objects)).toHaveLength(25);
});
