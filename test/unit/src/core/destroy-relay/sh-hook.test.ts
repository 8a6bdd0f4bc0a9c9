/**
 * The sh destroy hook (handlers/destroy-hook.sh, run by dash as /bin/sh is on Debian) against its Node
 * leader (leadHooks over a widget domain, in this process): each hook prints its own object's lines and
 * exits with its own code, values reach the leader as data, nothing is left in the relay folder; a hook
 * with no live leader, another stack's, or one whose leader dies or never reads, runs the Node hook (a
 * stand-in bundle here) within its bounded wait; a hook that finds no leader becomes it.
 */
import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../../../../src/core/clock';
import { claimedFifo, leadHooks, sharedDestroy, type FifoLead } from '../../../../../src/core/destroy-relay';
import { widgetDomain, type WidgetWorld } from '../fake-domain';

const SCRIPT = join(__dirname, '../../../../../handlers/destroy-hook.sh');
// HOOK_SH='bash --posix' runs the same tests under bash.
const [SH = 'dash', ...SH_ARGS] = (process.env.HOOK_SH ?? 'dash').split(' ');

let data: string;
let relay: string;
let bundle: string;
beforeEach(() => {
  data = mkdtempSync(join(tmpdir(), 'sh-hook-'));
  relay = join(data, 'cdktf-homelab-relay');
  mkdirSync(relay, { mode: 0o700 });
  // The Node hook's stand-in: says it ran, with what, and exits 7.
  bundle = join(data, 'bundle.js');
  const lock = join(relay, 'widgets.lead');
  writeFileSync(
    bundle,
    [
      "const { readFileSync } = require('node:fs');",
      `let lock = ''; try { lock = readFileSync(${JSON.stringify(lock)}, 'utf8').trim(); } catch {}`,
      "const leads = `leads=${process.env.HOMELAB_RELAY_DOMAIN ?? ''} lock=${lock === String(process.pid)}`;",
      "process.stderr.write(`node hook ${process.argv.slice(2).join(' ')} ${leads}\\n`);",
      'process.exit(7);',
    ].join('\n'),
  );
});
afterEach(() => rmSync(data, { recursive: true, force: true }));

// `jsonencode(self.input)`: the JSON text of the lifecycle's input, itself JSON text.
const lifecycle = (id: string, shelf = 'a') => JSON.stringify(JSON.stringify({ identity: { id }, target: shelf }));
const objectEnv = (id: string, shelf = 'a', stack = 'st'): NodeJS.ProcessEnv => ({
  HOMELAB_KIND: 'widget',
  HOMELAB_STACK: stack,
  HOMELAB_LIFECYCLE: lifecycle(id, shelf),
  HOMELAB_TARGET: JSON.stringify({ shelf }),
  HOMELAB_TARGET_LABEL: shelf,
});

interface Ran {
  readonly code: number | null;
  readonly out: string;
  readonly err: string;
  readonly ms: number;
}

const hook = (env: NodeJS.ProcessEnv, started?: (pid: number) => void): Promise<Ran> =>
  new Promise((resolve) => {
    const begun = Date.now();
    const child = spawn(SH, [...SH_ARGS, SCRIPT, bundle, 'widgets'], {
      env: { PATH: process.env.PATH, TF_DATA_DIR: data, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (child.pid !== undefined) started?.(child.pid);
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    // `close`: the hook's stdout and stderr closed, as Terraform waits for them.
    child.on('close', (code) => resolve({ code, out, err, ms: Date.now() - begun }));
  });

/** This process as the domain's leader, as the sh hook that claimed the lock would have made it. */
const claim = (): FifoLead => {
  writeFileSync(join(relay, 'widgets.lead'), `${process.pid}\n`);
  execFileSync('mkfifo', [join(relay, `widgets.${process.pid}.in`)]);
  const lead = claimedFifo(relay, { HOMELAB_RELAY_DOMAIN: 'widgets' });
  if (lead === undefined) throw new Error('the lead was not claimed');
  return lead;
};

const world = (): WidgetWorld => ({ live: new Map(['w0', 'w1', 'w2', 'stuck', 'b1'].map((id) => [id, 1])), calls: [] });

/** Leads `hooks` (started once the leader is up) with this process's own object w0. */
const leading = async (live: WidgetWorld, hooks: () => Promise<Ran[]>) => {
  const domain = widgetDomain(live);
  const context = { env: objectEnv('w0'), log: () => undefined, clock: systemClock };
  const work = (target: unknown) => sharedDestroy(domain, context, target);
  // A linger long enough for every hook to start on a busy machine.
  const own = leadHooks(domain, 'widget', context, claim(), work, { lingerMs: 1_500 });
  const ran = hooks();
  return { own: await own, ran: await ran };
};

test('each hook prints its own lines and exits with its own code; one leader, nothing left behind', async () => {
  const live = world();
  const odd = 'w1';
  const { own, ran } = await leading(live, () =>
    Promise.all([
      hook(objectEnv(odd)),
      hook(objectEnv('stuck')),
      hook(objectEnv('w2')),
      hook(objectEnv('b1', 'b')),
      hook({ ...objectEnv('w9'), HOMELAB_LIFECYCLE: JSON.stringify('{"identity":{"id":""},"target":"a"}') }),
    ]),
  );
  expect(own).toEqual({ code: 0, lines: [] });
  expect(ran.map(({ code, out }) => [code, out])).toEqual([
    [0, ''],
    [1, ''],
    [0, ''],
    [0, ''],
    [1, ''],
  ]);
  expect(ran[1]?.err).toBe('widget destroy: Widget not removed: the server said: line two; Host: h1\n');
  expect(ran[4]?.err).toMatch(/^widget destroy: .*identity/);
  expect([...live.live.keys()]).toEqual(['stuck']);
  // One session per target, each closed once the leader ended.
  expect(live.calls.filter((call) => call.startsWith('connect')).sort()).toEqual(['connect a', 'connect b']);
  expect(readdirSync(relay)).toEqual([]);
}, 20_000);

test('values reach the leader as data: quotes, $(), newlines and a lone = change nothing', async () => {
  const live = world();
  const label = 'a\'"$(touch pwned)`x`\n=';
  const { ran } = await leading(live, () =>
    Promise.all([hook({ ...objectEnv('w1', label), HOMELAB_TARGET: JSON.stringify({ shelf: 'a' }) })]),
  );
  expect(ran[0]).toMatchObject({ code: 0, err: '' });
  expect(live.live.has('w1')).toBe(false);
  expect(readdirSync(data).sort()).toEqual(['bundle.js', 'cdktf-homelab-relay']);
}, 20_000);

test("another stack's hook is declined: it destroys through the Node hook", async () => {
  const { ran } = await leading(world(), () => Promise.all([hook(objectEnv('w1', 'a', 'other'))]));
  expect(ran[0]).toMatchObject({ code: 7, err: 'node hook widget destroy leads= lock=false\n' });
  expect(readdirSync(relay)).toEqual([]);
}, 20_000);

test('a hook that finds no leader claims the lock with its own pid and becomes the leader', async () => {
  const ran = await hook(objectEnv('w1'));
  expect(ran).toMatchObject({ code: 7, err: 'node hook widget destroy leads=widgets lock=true\n' });
});

test('a lock whose leader is dead sends the hook to the Node hook at once', async () => {
  const dead = spawn('true');
  await new Promise((resolve) => dead.on('close', resolve));
  writeFileSync(join(relay, 'widgets.lead'), `${dead.pid}\n`);
  execFileSync('mkfifo', [join(relay, `widgets.${dead.pid}.in`)]);
  const ran = await hook(objectEnv('w1'));
  expect(ran).toMatchObject({ code: 7, err: 'node hook widget destroy leads= lock=false\n' });
  expect(ran.ms).toBeLessThan(2_000);
});

/** A leader of its own process: `script` runs with the FIFO's path in FIFO and the relay folder in RELAY. */
const fakeLeader = async (script: string) => {
  const leader = spawn(process.execPath, ['-e', script], { env: { ...process.env, RELAY: relay }, stdio: 'ignore' });
  const pid = leader.pid ?? 0;
  execFileSync('mkfifo', [join(relay, `widgets.${pid}.in`)]);
  writeFileSync(join(relay, 'widgets.lead'), `${pid}\n`);
  return leader;
};

test('a leader killed after its acknowledgement: the hook runs the Node hook, leaving no file', async () => {
  const leader = await fakeLeader(
    "const fs = require('node:fs'); const dir = process.env.RELAY; setTimeout(() => {" +
      "const fd = fs.openSync(`${dir}/widgets.${process.pid}.in`, 'r+'); const b = Buffer.alloc(64);" +
      "const pid = b.toString('utf8', 0, fs.readSync(fd, b, 0, 64, null)).split('\\n')[0];" +
      'const reply = fs.openSync(`${dir}/h${pid}.out`, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);' +
      "fs.writeSync(reply, 'a\\n'); process.kill(process.pid, 'SIGKILL'); }, 300);",
  );
  const ran = await hook(objectEnv('w1'));
  leader.kill('SIGKILL');
  expect(ran).toMatchObject({ code: 7, err: 'node hook widget destroy leads= lock=false\n' });
  expect(ran.ms).toBeLessThan(4_000);
  expect(readdirSync(relay).filter((name) => name.startsWith('h'))).toEqual([]);
}, 20_000);

test('a leader that serves but never reads: the hook gives up after its 5 s watchdog, leaving no file', async () => {
  const leader = await fakeLeader('setTimeout(() => undefined, 60_000)');
  // It says it serves (a leader makes this file once it reads its FIFO): the 5 s count from then.
  writeFileSync(join(relay, `widgets.${leader.pid}.up`), '');
  const ran = await hook(objectEnv('w1'));
  leader.kill('SIGKILL');
  expect(ran).toMatchObject({ code: 7, err: 'node hook widget destroy leads= lock=false\n' });
  expect(ran.ms).toBeGreaterThan(4_500);
  expect(ran.ms).toBeLessThan(8_000);
  expect(readdirSync(relay).filter((name) => name.startsWith('h'))).toEqual([]);
}, 20_000);

test('a fresh data dir: the hook makes the relay folder, this user only, and leads', async () => {
  rmSync(relay, { recursive: true });
  const ran = await hook(objectEnv('w1'));
  expect(ran).toMatchObject({ code: 7, err: 'node hook widget destroy leads=widgets lock=true\n' });
  expect(statSync(relay).mode & 0o777).toBe(0o700);
});

// An audit (2026-12-05): the data dir was checked only when the folder was missing, so a link another user
// planted in a data dir of theirs was followed, and the hook led in the folder it named.
test('a relay folder that is a link, in a data dir others may write: the hook runs the Node hook', async () => {
  const mine = join(data, 'mine');
  renameSync(relay, mine);
  symlinkSync(mine, relay);
  chmodSync(data, 0o777);
  const ran = await hook(objectEnv('w1'));
  expect(ran).toMatchObject({ code: 7, err: 'node hook widget destroy leads= lock=false\n' });
  expect(readdirSync(mine)).toEqual([]);
});

test.each([
  [
    'a link, in a data dir of this user',
    () => {
      renameSync(relay, join(data, 'mine'));
      symlinkSync(join(data, 'mine'), relay);
    },
  ],
  ['open to others (0755)', () => chmodSync(relay, 0o755)],
])('a relay folder that is %s: the hook runs the Node hook', async (_, make) => {
  make();
  const ran = await hook(objectEnv('w1'));
  expect(ran).toMatchObject({ code: 7, err: 'node hook widget destroy leads= lock=false\n' });
  expect(readdirSync(relay)).toEqual([]);
});

test('a data dir others may write: the hook makes no relay folder and runs the Node hook', async () => {
  rmSync(relay, { recursive: true });
  chmodSync(data, 0o777);
  const ran = await hook(objectEnv('w1'));
  expect(ran).toMatchObject({ code: 7, err: 'node hook widget destroy leads= lock=false\n' });
  expect(existsSync(relay)).toBe(false);
});
