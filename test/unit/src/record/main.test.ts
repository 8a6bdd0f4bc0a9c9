import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RECORD_FILE, recordText } from '../../../../src/core/object-record';
import { runPruneRecord, type StateList, terraformStateList } from '../../../../src/record/main';

let dir: string;
let said: string[];
const record = {
  stacks: {
    lab: {
      objects: {
        kept: { kind: 'metric-server', target: 'pve', state: 'declared' },
        gone: { kind: 'metric-server', target: 'pve', state: 'removed' },
      },
    },
    old: {
      objects: { left: { kind: 'metric-server', target: 'pve', state: 'forgotten' } },
    },
  },
};
const recordPath = () => join(dir, RECORD_FILE);
const onDisk = () => readFileSync(recordPath(), 'utf8');
/** A state holding the lifecycles named, per stack folder. */
const states =
  (byStack: Record<string, string[]>): StateList =>
  async (stackDir) => {
    const stack = stackDir.split('/').pop() ?? '';
    return (byStack[stack] ?? []).map((name) => `terraform_data.${name}_lifecycle`);
  };
const run = (args: string[], stateList: StateList) =>
  runPruneRecord(args, { cwd: dir, stateList, say: (l) => said.push(l) });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'prune-record-'));
  said = [];
  writeFileSync(recordPath(), recordText(record as never));
  for (const stack of ['lab', 'old']) mkdirSync(join(dir, 'cdktf.out', 'stacks', stack), { recursive: true });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('drops what left the state, keeps what is declared, and removes a stack left with nothing', async () => {
  expect(await run([], states({ lab: ['kept'] }))).toBe(0);
  const after = JSON.parse(onDisk());
  expect(Object.keys(after.stacks)).toEqual(['lab']);
  expect(Object.keys(after.stacks.lab.objects)).toEqual(['kept']);
  expect(said).toEqual([
    'prune-record: lab: dropped gone: their lifecycles left the state',
    'prune-record: old: dropped left: their lifecycles left the state',
    `prune-record: wrote ${RECORD_FILE}; commit it with the code`,
  ]);
});

test('keeps a tombstone whose lifecycle is still in the state, and says to apply first', async () => {
  const before = onDisk();
  expect(await run(['--stack', 'lab'], states({ lab: ['kept', 'gone'] }))).toBe(0);
  expect(onDisk()).toBe(before);
  expect(said).toEqual([
    'prune-record: lab: kept gone: still in the state, apply first',
    'prune-record: nothing to drop',
  ]);
});

test('--dry-run says what it would drop and writes nothing', async () => {
  const before = onDisk();
  expect(await run(['--dry-run'], states({}))).toBe(0);
  expect(onDisk()).toBe(before);
  expect(said).toContain('prune-record: lab: would drop gone: their lifecycles left the state');
  expect(said).toContain('prune-record: --dry-run, nothing written');
});

test('a state that cannot be read writes nothing, for any stack', async () => {
  const before = onDisk();
  const failing: StateList = async (stackDir) => {
    if (stackDir.endsWith('old'))
      throw new Error('terraform state list in old failed (exit 1): Backend initialization required');
    return [];
  };
  await expect(run([], failing)).rejects.toThrow('Backend initialization required');
  expect(onDisk()).toBe(before);
});

test('refuses an unknown stack, a missing stack folder or record, and an unknown flag, naming each', async () => {
  await expect(run(['--stack', 'nope'], states({}))).rejects.toThrow(
    `no stack nope in ${RECORD_FILE} (it holds lab, old)`,
  );
  rmSync(join(dir, 'cdktf.out', 'stacks', 'old'), { recursive: true });
  await expect(run([], states({}))).rejects.toThrow(/stacks\/old does not exist: synthesize, and terraform init there/);
  expect(await run(['--stak', 'lab'], states({}))).toBe(2);
  expect(said).toContain('prune-record: unknown argument --stak');
  rmSync(recordPath());
  await expect(run([], states({}))).rejects.toThrow(`no ${RECORD_FILE} in ${dir}: run it beside cdktf.json`);
});

test('refuses a record whose stack name would lead out of the synth output', async () => {
  writeFileSync(recordPath(), recordText({ stacks: { '..': record.stacks.old } } as never));
  await expect(run([], states({}))).rejects.toThrow(/stacks key "\.\." must be a stack id \(a Terraform identifier\)/);
});

test('keeps the mode of the record it rewrites', async () => {
  chmodSync(recordPath(), 0o600);
  process.umask(0o022);
  expect(await run([], states({ lab: ['kept'] }))).toBe(0);
  expect(statSync(recordPath()).mode & 0o777).toBe(0o600);
});

test('terraformStateList returns the addresses the binary prints, and names its last words when it fails', async () => {
  const binary = join(dir, 'fake-terraform');
  writeFileSync(binary, '#!/bin/sh\n[ "$1 $2" = "state list" ] || exit 9\nprintf "terraform_data.a_lifecycle\\n\\n"\n');
  chmodSync(binary, 0o755);
  expect(await terraformStateList(binary)(dir)).toEqual(['terraform_data.a_lifecycle']);
  writeFileSync(binary, '#!/bin/sh\necho "Error: Backend initialization required" >&2\nexit 1\n');
  await expect(terraformStateList(binary)(dir)).rejects.toThrow(
    `${binary} state list in ${dir} failed (exit 1): Error: Backend initialization required`,
  );
});

// An audit (2026-12-05): Terraform catches SIGTERM, so a backend that never answered held prune-record past 400 s.
test('terraformStateList stops a binary past its time, and kills one that does not stop', async () => {
  const binary = join(dir, 'fake-terraform');
  writeFileSync(binary, "#!/bin/sh\ntrap 'echo stopping >&2' TERM\nwhile :; do sleep 0.05; done\n");
  chmodSync(binary, 0o755);
  const started = Date.now();
  await expect(terraformStateList(binary, { answerMs: 300, stopMs: 300 })(dir)).rejects.toThrow(
    `${binary} state list in ${dir} failed (no answer within 0.3 s, and killed when it did not stop): stopping`,
  );
  expect(Date.now() - started).toBeLessThan(5_000);
});

test('terraformStateList stops a binary that prints more than a state could hold, saying so', async () => {
  const binary = join(dir, 'fake-terraform');
  writeFileSync(binary, "#!/bin/sh\nhead -c 17000000 /dev/zero | tr '\\0' 'a'\n");
  chmodSync(binary, 0o755);
  await expect(terraformStateList(binary)(dir)).rejects.toThrow(
    `${binary} state list in ${dir} failed (more than 16777216 bytes of output)`,
  );
});
