/**
 * The sh destroy hook's acknowledgement against its fallback (handlers/destroy-hook.sh, fifo-lead.ts), at
 * the instants they meet: a leader that answers a hook just after its watchdog ran out, one that comes
 * after the hook gave its request up, and one that begins serving late or never. It prevents one object
 * destroyed twice at once (the leader's destroy and the hook's Node hook), with an outcome Terraform records
 * from one of them while the other still runs, and a hook giving up on a leader still starting.
 * The timing is the test's: a `sleep` stand-in on the hook's PATH ends the watchdog when the test says, and
 * the hook runs under bash with a DEBUG trap (a test seam, no product code) that holds it at a chosen step.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../../../../src/core/clock';
import { claimedFifo, type FifoLead, leadHooks, sharedDestroy } from '../../../../../src/core/destroy-relay';
import { widgetDomain, type WidgetWorld } from '../fake-domain';

const SCRIPT = join(__dirname, '../../../../../handlers/destroy-hook.sh');

let data: string;
let relay: string;
let stubs: string;
beforeEach(() => {
  data = mkdtempSync(join(tmpdir(), 'sh-hook-race-'));
  relay = join(data, 'cdktf-homelab-relay');
  mkdirSync(relay, { mode: 0o700 });
  stubs = join(data, 'bin');
  mkdirSync(stubs);
  // The watchdog's `sleep`, timed by the test: `sleep 5` (a serving leader's time to take the request) runs
  // until the test makes `end`, and at once while the test says the leader is `late` and none serves yet
  // (those 5 s ran out first); another (the wait for the leader to serve) until one serves, or at once once
  // the test says none `never` will. Each says what it was asked in `sleeps`.
  writeFileSync(
    join(stubs, 'sleep'),
    [
      '#!/bin/sh',
      `echo "$*" >>"${data}/sleeps"`,
      `serving() { ls "${relay}" | grep -q '[.]up$'; }`,
      'if [ "$*" = 5 ]; then',
      `  [ -e "${data}/late" ] && ! serving && exit 0`,
      `  until [ -e "${data}/end" ]; do /bin/sleep 0.01; done`,
      'else',
      `  [ -e "${data}/never" ] && exit 0`,
      '  until serving; do /bin/sleep 0.01; done',
      'fi',
    ].join('\n'),
  );
  chmodSync(join(stubs, 'sleep'), 0o755);
  // The Node hook's stand-in: it would destroy the object again; it says so and exits 7.
  writeFileSync(join(data, 'bundle.js'), "process.stderr.write('node hook destroys it too\\n'); process.exit(7);");
});
afterEach(() => rmSync(data, { recursive: true, force: true }));

const objectEnv = (id: string): NodeJS.ProcessEnv => ({
  HOMELAB_KIND: 'widget',
  HOMELAB_STACK: 'st',
  HOMELAB_LIFECYCLE: JSON.stringify(JSON.stringify({ identity: { id }, target: 'a' })),
  HOMELAB_TARGET: JSON.stringify({ shelf: 'a' }),
  HOMELAB_TARGET_LABEL: 'a',
});

/**
 * Bash's DEBUG trap runs before each command of the hook (set -T: in its functions too): it makes
 * `reading` as the hook reads its reply FIFO, and holds the hook, once, before the first command that `at`
 * matches (a pattern of `case`) after that read and the watchdog's end, making `held` while it waits for `go`.
 */
const holdAt = (at: string) =>
  [
    // Never in the watchdog's subshell (set -T gives it the trap too): it would be held in the hook's place.
    // Held only after the read ran (`read_ran`): one held before it would take the leader's answer.
    `trap 'if [ "$BASHPID" = "$$" ]; then`,
    `case $BASH_COMMAND in ${at}) [ -n "$read_ran" ] && [ -e "${data}/end" ] && [ ! -e "${data}/held" ] && {`,
    `: >|"${data}/held"; until [ -e "${data}/go" ]; do /bin/sleep 0.01; done; } ;; esac`,
    `case $BASH_COMMAND in *"read -r line"*) read_ran=1; : >|"${data}/reading" ;; esac; fi' DEBUG`,
    'set -T',
    '. "$0"',
  ].join('\n');

interface Ran {
  readonly code: number | null;
  readonly err: string;
}

const hook = (env: NodeJS.ProcessEnv, at: string): Promise<Ran> =>
  new Promise((resolve) => {
    const child = spawn('bash', ['--posix', '-c', holdAt(at), SCRIPT, join(data, 'bundle.js'), 'widgets'], {
      env: { PATH: `${stubs}:${process.env.PATH ?? ''}`, TF_DATA_DIR: data, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('close', (code) => resolve({ code, err }));
  });

const until = async (path: string) => {
  for (let waited = 0; !existsSync(path); waited += 10) {
    if (waited > 10_000) throw new Error(`${path} never came`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

/** Widgets w0 (the leader's own) and w1 (the hook's). */
const world = (): WidgetWorld => ({
  live: new Map([
    ['w0', 1],
    ['w1', 1],
  ]),
  calls: [],
});

/** This process's lock and FIFO, as the sh hook that claimed the lock makes them; `up` if it serves already. */
const claim = (up: boolean) => {
  writeFileSync(join(relay, 'widgets.lead'), `${process.pid}\n`);
  execFileSync('mkfifo', [join(relay, `widgets.${process.pid}.in`)]);
  if (up) writeFileSync(join(relay, `widgets.${process.pid}.up`), '');
  const lead = claimedFifo(relay, { HOMELAB_RELAY_DOMAIN: 'widgets' });
  if (lead === undefined) throw new Error('the lead was not claimed');
  return lead;
};

/** This process leads: its own object w0, and the hooks that write to its FIFO. */
const lead = (live: WidgetWorld, claimed: FifoLead) => {
  const domain = widgetDomain(live);
  const context = { env: objectEnv('w0'), log: () => undefined, clock: systemClock };
  return leadHooks(domain, 'widget', context, claimed, (on) => sharedDestroy(domain, context, on), { lingerMs: 300 });
};

/**
 * A hook of widget w1, its leader serving but not answering it, whose 5 s run out; the hook is held at
 * `at`, then this process serves it, then the hook goes on. The lock and FIFO are made first, so the hook
 * finds a live leader and writes its pid to the FIFO, where the leader reads it.
 */
const lateLeader = async (at: string) => {
  const live = world();
  const claimed = claim(true);
  const ran = hook(objectEnv('w1'), at);
  // The hook wrote its pid and reads its reply FIFO: the watchdog ends, and no leader answered yet.
  await until(join(data, 'reading'));
  writeFileSync(join(data, 'end'), '');
  await until(join(data, 'held'));
  const own = await lead(live, claimed);
  const leaderDestroyed = !live.live.has('w1');
  writeFileSync(join(data, 'go'), '');
  return { own, leaderDestroyed, ran: await ran };
};

test('a leader that answers as the watchdog ran out destroys the object; the hook prints its outcome', async () => {
  // Held at the hook's first step after its read found no acknowledgement (EOF), before it acts on that.
  const { own, leaderDestroyed, ran } = await lateLeader('*');
  expect(own).toEqual({ code: 0, lines: [] });
  // One destroy: the leader's, whose outcome the hook prints; the Node hook never runs.
  expect(leaderDestroyed).toBe(true);
  expect(ran).toEqual({ code: 0, err: '' });
}, 20_000);

test('a leader that comes after the hook took its request back leaves the object to the Node hook', async () => {
  // Held once it chose to fall back: its request taken back, its reply FIFO still open (a leader's open works).
  const { own, leaderDestroyed, ran } = await lateLeader('fall_back');
  expect(own).toEqual({ code: 0, lines: [] });
  // One destroy: the Node hook's.
  expect(leaderDestroyed).toBe(false);
  expect(ran).toEqual({ code: 7, err: 'node hook destroys it too\n' });
}, 20_000);

const sleeps = () => (existsSync(join(data, 'sleeps')) ? readFileSync(join(data, 'sleeps'), 'utf8').split('\n') : []);

// Under CI's load a leader began serving 4.5-4.8 s after its start, and hooks whose 5 s counted from their
// own start destroyed through the Node hook (17 of 20 once): a Node start each.
test('a leader that begins serving after the first 5 s still takes the object: the 5 s count from then', async () => {
  writeFileSync(join(data, 'late'), '');
  const live = world();
  const claimed = claim(false);
  let done = false;
  const ran = hook(objectEnv('w1'), 'never-held').then((outcome) => {
    done = true;
    return outcome;
  });
  // Until the hook waits for its leader to serve (a sleep other than `sleep 5`), or went without it.
  for (let waited = 0; !done && !sleeps().some((line) => line !== '' && line !== '5'); waited += 10) {
    if (waited > 10_000) throw new Error('the hook neither waited nor ended');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const own = await lead(live, claimed);
  writeFileSync(join(data, 'end'), '');
  expect(own).toEqual({ code: 0, lines: [] });
  expect(await ran).toEqual({ code: 0, err: '' });
  expect([...live.live.keys()]).toEqual([]);
}, 20_000);

test('a leader that never begins serving: the hook waits 30 polls and 5 s more, then the Node hook', async () => {
  writeFileSync(join(data, 'late'), '');
  writeFileSync(join(data, 'never'), '');
  claim(false);
  expect(await hook(objectEnv('w1'), 'never-held')).toEqual({ code: 7, err: 'node hook destroys it too\n' });
  expect(sleeps()).toEqual([...Array.from({ length: 30 }, () => '1'), '5', '']);
}, 20_000);
