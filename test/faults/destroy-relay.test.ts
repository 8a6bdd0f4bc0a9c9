/**
 * The destroy relay's faults, with hooks as real processes (the handler CLI over a folder, see
 * relay-hook-fixture.ts): a failed connect, a leader killed with followers in flight, a follower killed
 * while its object is destroyed, and one killed between sending its request and its answer. After each,
 * every hook has ended within a bound, no socket is left in the relay folder, and no destroy was cut off
 * or abandoned without a word. Then a leader of sh hooks (handlers/destroy-hook.sh run by dash, the fixture its
 * leader) signalled while it destroys: a TERM to it alone, as a `kill` sends, and an INT to every hook's group, as a
 * Ctrl-C does: it takes its lock, FIFO and `up` file with it, says in one line what it leaves, and dies of the signal.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';

jest.setTimeout(120_000);

const root = mkdtempSync(join(tmpdir(), 'relay-faults-'));
const fixture = join(root, 'hook.js');
/** Longest a hook may take in these tests: a follower of a vanished leader must not wait its 15 minutes. */
const HOOK_BOUND_MS = 30_000;
let work: string;

beforeAll(async () => {
  await build({
    entryPoints: [join(__dirname, 'relay-hook-fixture.ts')],
    bundle: true,
    platform: 'node',
    target: 'node20',
    outfile: fixture,
    logLevel: 'error',
  });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));
beforeEach(() => {
  work = mkdtempSync(join(root, 'run-'));
  mkdirSync(join(work, '.terraform'), { mode: 0o700 });
  mkdirSync(join(work, 'objects'));
});

interface Ended {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
}

interface Hook {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly ended: Promise<Ended>;
}

const SH_HOOK = join(__dirname, '..', '..', 'handlers', 'destroy-hook.sh');

/**
 * One destroy hook as Terraform runs it, for the object `id` whose destroy takes `ms`: the Node hook, or the sh hook
 * (`sh`) in a process group of its own, as a terminal's Ctrl-C reaches it.
 */
const hook = (id: string, ms: number, sh = false): Hook => {
  writeFileSync(join(work, 'objects', id), '');
  const command = sh ? ['dash', SH_HOOK, fixture, 'widgets'] : [process.execPath, fixture, 'widget', 'destroy'];
  const child = spawn(command[0] ?? 'dash', command.slice(1), {
    cwd: work,
    detached: sh,
    env: {
      PATH: process.env.PATH,
      HOMELAB_KIND: 'widget',
      HOMELAB_LIFECYCLE: JSON.stringify(JSON.stringify({ identity: { id, ms }, target: 'a' })),
      HOMELAB_TARGET: JSON.stringify({ dir: work }),
      HOMELAB_TARGET_LABEL: 'a',
      RELAY_FIXTURE_DIR: work,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const ended = new Promise<Ended>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`hook ${id} still ran after ${HOOK_BOUND_MS} ms: ${stderr}`));
    }, HOOK_BOUND_MS);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr });
    });
  });
  return { child, pid: child.pid ?? -1, ended };
};

/** The fixture's `<step> <id> <pid>` lines. */
const events = (): string[][] => {
  const file = join(work, 'events');
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((line) => line.split(' '))
    : [];
};

const seen = (step: string, id: string, pid?: number) =>
  events().some(([s, i, p]) => s === step && i === id && (pid === undefined || Number(p) === pid));

const waitFor = async (what: string, check: () => boolean, ms = 20_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`waited ${ms} ms for ${what}; events:\n${events().join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

const sockets = (): string[] => {
  const dir = join(work, '.terraform', 'cdktf-homelab-relay');
  return existsSync(dir) ? readdirSync(dir) : [];
};

const objectGone = (id: string) => !existsSync(join(work, 'objects', id));

test('a failed connect fails every waiting hook with its error and leaves no socket behind', async () => {
  writeFileSync(join(work, 'connect'), JSON.stringify({ failures: 1000, ms: 600 }));
  const hooks = [hook('w0', 100)];
  await waitFor('the first hook to connect', () => existsSync(join(work, 'connects')) || sockets().length > 0);
  hooks.push(...['w1', 'w2', 'w3', 'w4'].map((id) => hook(id, 100)));
  const ended = await Promise.all(hooks.map(({ ended }) => ended));
  for (const { code, stderr } of ended) {
    expect(code).toBe(1);
    expect(stderr).toMatch(/widget destroy: Shelf unreachable: no answer from the shelf/);
  }
  expect(sockets()).toEqual([]);
  rmSync(join(work, 'connect'));
  const next = await hook('w0', 50).ended;
  expect(next).toMatchObject({ code: 0 });
  expect(objectGone('w0')).toBe(true);
  expect(sockets()).toEqual([]);
});

test('followers of a killed leader end in bounded time, each object destroyed or its failure said', async () => {
  const leader = hook('w0', 4000);
  await waitFor('the leader to start its own object', () => seen('start', 'w0', leader.pid));
  const followers = ['w1', 'w2', 'w3'].map((id) => hook(id, 1500));
  await waitFor('every follower to send its object', () => followers.every(({ pid }) => seen('sent', '-', pid)));
  leader.child.kill('SIGKILL');
  expect((await leader.ended).signal).toBe('SIGKILL');
  const ended = await Promise.all(followers.map(({ ended }) => ended));
  ended.forEach(({ code, stderr }, at) => {
    if (code === 0) expect(objectGone(`w${at + 1}`)).toBe(true);
    else expect(stderr).toMatch(/destroy again/);
  });
  expect(events().filter(([step]) => step === 'cut')).toEqual([]);
  expect(sockets()).toEqual([]);
  const retry = await hook('w0', 50).ended; // Terraform's next destroy of the leader's object
  expect(retry.code).toBe(0);
  expect(sockets()).toEqual([]);
});

test("a lone leader's socket left by SIGKILL does not block the next hook", async () => {
  const leader = hook('w0', 4000);
  await waitFor('the leader to start its own object', () => seen('start', 'w0', leader.pid));
  leader.child.kill('SIGKILL');
  await leader.ended;
  expect(sockets()).toHaveLength(1);
  const started = Date.now();
  expect((await hook('w0', 50).ended).code).toBe(0);
  console.log(`the next hook took over the stale socket and ended in ${Date.now() - started} ms`);
  expect(objectGone('w0')).toBe(true);
  expect(sockets()).toEqual([]);
});

test('a leader whose parent is gone exits at once and takes its socket with it', async () => {
  // Its shell SIGKILLed, as when terraform is: the leader is re-parented and exits (stop.ts) with its server open.
  const shell = spawn('sh', ['-c', '"$0" "$1" widget destroy & wait', process.execPath, fixture], {
    cwd: work,
    env: {
      PATH: process.env.PATH,
      HOMELAB_KIND: 'widget',
      HOMELAB_LIFECYCLE: JSON.stringify(JSON.stringify({ identity: { id: 'w0', ms: 20_000 }, target: 'a' })),
      HOMELAB_TARGET: JSON.stringify({ dir: work }),
      HOMELAB_TARGET_LABEL: 'a',
      RELAY_FIXTURE_DIR: work,
    },
    stdio: 'ignore',
  });
  writeFileSync(join(work, 'objects', 'w0'), '');
  await waitFor('the leader to start its own object', () => seen('start', 'w0'));
  expect(sockets()).toHaveLength(1);
  const leader = Number(events().find(([step]) => step === 'start')?.[2]);
  shell.kill('SIGKILL');
  await waitFor('the leader to exit', () => {
    try {
      process.kill(leader, 0);
      return false;
    } catch {
      return true;
    }
  });
  expect(sockets()).toEqual([]);
});

/**
 * A leader destroying w0 for `leaderMs`, a follower of w1 (destroyed in `ms`) SIGKILLed at the step `at`;
 * then the leader must end cleanly, having finished w1's destroy over its open session and said so.
 */
const killFollowerAt = async (at: 'sent' | 'start', leaderMs: number, ms: number) => {
  const leader = hook('w0', leaderMs);
  await waitFor('the leader to start its own object', () => seen('start', 'w0', leader.pid));
  const killed = hook('w1', ms);
  await waitFor(`the follower's ${at}`, () => (at === 'sent' ? seen('sent', '-', killed.pid) : seen('start', 'w1')));
  killed.child.kill('SIGKILL');
  expect((await killed.ended).signal).toBe('SIGKILL');
  const { code, stderr } = await leader.ended;
  expect(code).toBe(0);
  expect(seen('done', 'w1', leader.pid)).toBe(true);
  expect(objectGone('w1')).toBe(true);
  expect(stderr).toContain(`widget {"id":"w1","ms":${ms}}: its hook ended before the answer; this run destroyed it`);
  expect(events().filter(([step]) => step === 'cut')).toEqual([]);
  expect(sockets()).toEqual([]);
};

test('a follower killed while its object is destroyed: the leader finishes that destroy and says so', async () => {
  await killFollowerAt('start', 1500, 3000);
});

test('a hook killed between its request and the answer: its destroy still runs, and its retry ends clean', async () => {
  await killFollowerAt('sent', 3000, 1500); // its request waits behind the leader's own object
  rmSync(join(work, 'events'));
  expect(await hook('w1', 50).ended).toMatchObject({ code: 0 }); // Terraform's next destroy of it
  expect(sockets()).toEqual([]);
});

test('a leader sent TERM alone takes its lock, FIFO and up file with it, says so, and dies of the signal', async () => {
  const leader = hook('w0', 5000, true);
  await waitFor('the leader to start its own object', () => seen('start', 'w0'));
  expect(sockets().sort()).toEqual([
    `widgets.${leader.child.pid}.in`,
    `widgets.${leader.child.pid}.up`,
    'widgets.lead',
  ]);
  leader.child.kill('SIGTERM');
  const ended = await leader.ended;
  expect(sockets()).toEqual([]);
  expect(ended.signal).toBe('SIGTERM');
  expect(ended.stderr).toMatch(
    /destroy leader stopped by SIGTERM with 1 object in flight: .* the next destroy finishes/,
  );
  expect(objectGone('w0')).toBe(false);
  expect((await hook('w0', 50, true).ended).code).toBe(0); // Terraform's next destroy of it
  expect(objectGone('w0')).toBe(true);
});

test('a Ctrl-C to a leader and its followers: each says what it leaves, and the next destroys finish', async () => {
  const leader = hook('w0', 300, true);
  await waitFor('the leader to start its own object', () => seen('start', 'w0'));
  const followers = ['w1', 'w2'].map((id) => hook(id, 5000, true));
  // The widget kind has no batch: its followers' destroys run once the leader's own is done.
  await waitFor('the leader to start its followers', () => seen('start', 'w1') && seen('start', 'w2'));
  for (const { child } of [leader, ...followers]) process.kill(-(child.pid ?? 0), 'SIGINT');
  const [led, ...followed] = await Promise.all([leader, ...followers].map(({ ended }) => ended));
  expect(led?.signal).toBe('SIGINT');
  expect(led?.stderr).toMatch(/destroy leader stopped by SIGINT with 2 objects in flight/);
  // Its trap's exit, or the Node hook it fell back to as the leader went, ended by the same Ctrl-C: failed either way.
  for (const { code, signal } of followed)
    expect({ code, signal }).toEqual(code === 130 ? { code, signal: null } : { code: null, signal: 'SIGINT' });
  expect(['w0', 'w1', 'w2'].filter(objectGone)).toEqual(['w0']);
  // The next destroy's hooks.
  for (const id of ['w0', 'w1', 'w2']) expect((await hook(id, 50, true).ended).code).toBe(0);
  expect(['w0', 'w1', 'w2'].filter((id) => !objectGone(id))).toEqual([]);
  expect(sockets()).toEqual([]);
});
