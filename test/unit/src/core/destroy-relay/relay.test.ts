/**
 * The destroy relay over real unix sockets in a private folder: hooks that run together share one leader
 * and one session, each gets its own object's lines and outcome, a later hook leads a run of its own, a
 * socket left by a killed leader is taken over, and a leader that vanishes without answering leaves its
 * follower to destroy alone. A failed connect and a hook that never sends leave no server, socket or
 * session behind. `relayDirectory` refuses a folder another user or everyone may enter or swap.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../../../../src/core/clock';
import {
  type DestroyOutcome,
  type DestroyRequest,
  relayDestroy,
  relayDirectory,
  sharedDestroy,
} from '../../../../../src/core/destroy-relay';
import type { HandlerDomain } from '../../../../../src/core/kind';
import { widgetDomain, type WidgetWorld } from '../fake-domain';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'relay-test-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A leader's work that records sessions and objects; `stuck` fails, everything waits `ms`. */
const world = (ms = 30) => {
  const sessions: string[][] = [];
  const lead = () => {
    const destroyed: string[] = [];
    sessions.push(destroyed);
    return {
      destroy: async (request: DestroyRequest): Promise<DestroyOutcome> => {
        await new Promise((resolve) => setTimeout(resolve, ms));
        const id = String((request.identity as { id: string }).id);
        if (id === 'stuck') return { code: 1, lines: [`${id}: could not remove it`] };
        destroyed.push(id);
        return { code: 0, lines: [`${id}: removed`] };
      },
      close: async () => undefined,
    };
  };
  return { sessions, lead };
};

const request = (id: string): DestroyRequest => ({ kind: 'widget', target: { shelf: 'a' }, identity: { id } });

test('hooks that run together share one leader and one session; each gets its own lines and outcome', async () => {
  const { sessions, lead } = world();
  const socket = join(dir, 's.sock');
  const ids = ['a', 'b', 'stuck', 'c', 'd', 'e'];
  const outcomes = await Promise.all(ids.map((id) => relayDestroy(request(id), lead, { socket, clock: systemClock })));
  expect(sessions).toHaveLength(1);
  expect([...(sessions[0] ?? [])].sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
  expect(outcomes).toEqual(
    ids.map((id) =>
      id === 'stuck' ? { code: 1, lines: ['stuck: could not remove it'] } : { code: 0, lines: [`${id}: removed`] },
    ),
  );
});

test("a follower's adopt reaches the leader with its object, and only its own (issue 27)", async () => {
  const seen: DestroyRequest[] = [];
  const lead = () => ({
    destroy: async (sent: DestroyRequest): Promise<DestroyOutcome> => {
      seen.push(sent);
      await new Promise((resolve) => setTimeout(resolve, 60));
      return { code: 0, lines: [] };
    },
    close: async () => undefined,
  });
  const options = { socket: join(dir, 's.sock'), clock: systemClock };
  const leader = relayDestroy(request('a'), lead, options);
  await new Promise((resolve) => setTimeout(resolve, 20));
  await Promise.all([leader, relayDestroy({ ...request('b'), adopt: true }, lead, options)]);
  expect(seen).toEqual([request('a'), { ...request('b'), adopt: true }]);
});

test('a hook that comes while the leader lingers joins it; one that comes after it ended leads anew', async () => {
  const { sessions, lead } = world(10);
  const socket = join(dir, 's.sock');
  const options = { socket, clock: systemClock, lingerMs: 300 };
  const first = relayDestroy(request('a'), lead, options);
  await new Promise((resolve) => setTimeout(resolve, 100)); // the leader has answered its own object
  await relayDestroy(request('b'), lead, options);
  await first;
  await relayDestroy(request('c'), lead, options);
  expect(sessions).toEqual([['a', 'b'], ['c']]);
});

test('a hook that came and went while the leader lingered keeps it lingering for the next one', async () => {
  const { sessions, lead } = world(10);
  const socket = join(dir, 's.sock');
  const options = { socket, clock: systemClock, lingerMs: 600 };
  const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const first = relayDestroy(request('a'), lead, options);
  await wait(100);
  await relayDestroy(request('b'), lead, options); // done by ~110 ms: the linger that began at ~10 ms starts again
  await wait(800); // past the first linger's end, inside the second's
  await relayDestroy(request('c'), lead, options);
  await first;
  expect(sessions).toEqual([['a', 'b', 'c']]);
});

test('thirty hooks at once, three times over: every object destroyed once, every hook answered', async () => {
  const { sessions, lead } = world(5);
  const socket = join(dir, 's.sock');
  for (let round = 0; round < 3; round += 1) {
    const ids = Array.from({ length: 30 }, (_, index) => `r${round}-${index}`);
    const outcomes = await Promise.all(
      ids.map((id) => relayDestroy(request(id), lead, { socket, clock: systemClock, lingerMs: 50 })),
    );
    expect(outcomes.map(({ code }) => code)).toEqual(Array(30).fill(0));
  }
  expect(sessions.flat().sort()).toEqual(
    [0, 1, 2].flatMap((round) => Array.from({ length: 30 }, (_, index) => `r${round}-${index}`)).sort(),
  );
});

test('a socket a killed leader left is taken over: the hook leads and destroys its object', async () => {
  const { sessions, lead } = world();
  const socket = join(dir, 's.sock');
  writeFileSync(socket, ''); // nothing listens on it, as after a SIGKILL
  expect(await relayDestroy(request('a'), lead, { socket, clock: systemClock })).toEqual({
    code: 0,
    lines: ['a: removed'],
  });
  expect(sessions).toEqual([['a']]);
});

test('a leader that takes the object and goes without answering leaves the follower to destroy it alone', async () => {
  const { sessions, lead } = world();
  const socket = join(dir, 's.sock');
  const silent = createServer((connection) => connection.destroy());
  await new Promise<void>((resolve) => silent.listen(socket, resolve));
  try {
    const outcome = await relayDestroy(request('a'), lead, { socket, clock: systemClock });
    expect(outcome).toEqual({ code: 0, lines: ['a: removed'] });
    expect(sessions).toEqual([['a']]);
  } finally {
    silent.close();
  }
});

test('a follower waits a bounded time for a leader that never answers, and says the state is unknown', async () => {
  const { lead } = world();
  const socket = join(dir, 's.sock');
  // It reads and never answers; reading lets its side see the follower hang up, so no socket outlives the test.
  const mute = createServer((connection) => connection.resume());
  await new Promise<void>((resolve) => mute.listen(socket, resolve));
  try {
    const outcome = await relayDestroy(request('a'), lead, { socket, clock: systemClock, waitMs: 200 });
    expect(outcome.code).toBe(1);
    expect(outcome.lines.join('\n')).toMatch(/gave no outcome in 0\.2 s; the object may or may not be removed/);
  } finally {
    mute.close();
  }
});

/** Whether anything still answers on `socket`. */
const answers = (socket: string) =>
  new Promise<boolean>((resolve) => {
    const probe = createConnection(socket);
    probe.on('connect', () => resolve(true)).on('error', () => resolve(false));
    probe.on('close', () => probe.destroy());
  });

test("a failed connect is its hook's error; the server, socket and every opened session are closed after", async () => {
  // Regression: the connect's throw escaped serve(), which had no finally.
  const shelf: WidgetWorld = {
    live: new Map([
      ['w1', 1],
      ['w2', 2],
    ]),
    calls: [],
  };
  const domain = widgetDomain(shelf);
  let connects = 0;
  const flaky: HandlerDomain<WidgetWorld, { shelf: string }> = {
    ...domain,
    connect: async (target) => {
      connects += 1;
      await new Promise((resolve) => setTimeout(resolve, 100));
      return domain.connect(connects === 1 ? { shelf: 'gone' } : target);
    },
  };
  const socket = join(dir, 's.sock');
  const context = { env: {}, log: () => undefined, clock: systemClock };
  const hook = (id: string) =>
    relayDestroy(request(id), () => sharedDestroy(flaky, context, { shelf: 'a' }), { socket, clock: systemClock });
  const first = hook('w0');
  await new Promise((resolve) => setTimeout(resolve, 50)); // the leader is connecting
  const outcomes = await Promise.all([first, hook('w1'), hook('w2')]);
  expect(outcomes[0]).toEqual({ code: 1, lines: ['widget destroy: Shelf unreachable: shelf gone did not answer'] });
  expect(outcomes.slice(1)).toEqual([
    { code: 0, lines: [] },
    { code: 0, lines: [] },
  ]);
  expect(shelf.calls).toEqual(['connect a', 'close']);
  expect(existsSync(socket)).toBe(false);
  expect(await answers(socket)).toBe(false);
});

test('every hook of a batch whose connect fails gets the error, and no hook leads again', async () => {
  const shelf: WidgetWorld = { live: new Map(), calls: [] };
  const socket = join(dir, 's.sock');
  const context = { env: {}, log: () => undefined, clock: systemClock };
  let leads = 0;
  const lead = () => {
    leads += 1;
    return sharedDestroy(widgetDomain(shelf), context, { shelf: 'gone' });
  };
  const gone = (id: string) => ({ ...request(id), target: { shelf: 'gone' } });
  const outcomes = await Promise.all(
    ['w0', 'w1', 'w2', 'w3'].map((id) => relayDestroy(gone(id), lead, { socket, clock: systemClock })),
  );
  for (const outcome of outcomes) {
    expect(outcome).toEqual({ code: 1, lines: ['widget destroy: Shelf unreachable: shelf gone did not answer'] });
  }
  expect(leads).toBe(1);
  expect(existsSync(socket)).toBe(false);
});

test('a hook that connects and never sends holds the leader no longer than requestMs', async () => {
  const { sessions, lead } = world(100);
  const socket = join(dir, 's.sock');
  const started = Date.now();
  const leader = relayDestroy(request('a'), lead, { socket, clock: systemClock, lingerMs: 50, requestMs: 300 });
  await new Promise((resolve) => setTimeout(resolve, 30));
  const mute = createConnection(socket); // a hook stopped before it wrote its request
  mute.on('error', () => undefined);
  try {
    expect(await leader).toEqual({ code: 0, lines: ['a: removed'] });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(sessions).toEqual([['a']]);
  } finally {
    mute.destroy();
  }
});

describe('relayDirectory', () => {
  test("is a 0700 folder in Terraform's data dir, or TF_DATA_DIR", () => {
    const data = join(dir, 'data');
    mkdirSync(data);
    expect(relayDirectory({ TF_DATA_DIR: data })).toBe(join(data, 'cdktf-homelab-relay'));
    expect(relayDirectory({ TF_DATA_DIR: data })).toBe(join(data, 'cdktf-homelab-relay')); // and again
  });

  test('is refused when the folder is a symlink, open to others, or the data dir is missing', () => {
    const data = join(dir, 'data');
    mkdirSync(data);
    mkdirSync(join(dir, 'elsewhere'), { mode: 0o700 });
    symlinkSync(join(dir, 'elsewhere'), join(data, 'cdktf-homelab-relay'));
    expect(relayDirectory({ TF_DATA_DIR: data })).toBeUndefined();
    const open = join(dir, 'open');
    mkdirSync(join(open, 'cdktf-homelab-relay'), { recursive: true });
    chmodSync(join(open, 'cdktf-homelab-relay'), 0o755);
    expect(relayDirectory({ TF_DATA_DIR: open })).toBeUndefined();
    expect(relayDirectory({ TF_DATA_DIR: join(dir, 'missing') })).toBeUndefined();
  });

  test('is refused when others may write the data dir and so swap the folder under a hook', () => {
    const shared = join(dir, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    expect(relayDirectory({ TF_DATA_DIR: shared })).toBeUndefined();
  });
});

describe('relayDirectory and a data dir its group may write', () => {
  const groupWritable = () => {
    const data = join(dir, 'group');
    mkdirSync(data);
    chmodSync(data, 0o775);
    return data;
  };

  test("is taken when the group is this user's own", () => {
    const data = groupWritable();
    expect(relayDirectory({ TF_DATA_DIR: data }, () => true)).toBe(join(data, 'cdktf-homelab-relay'));
  });

  test('is refused when the group is shared: a member could swap the folder under a hook', () => {
    const data = groupWritable();
    expect(relayDirectory({ TF_DATA_DIR: data }, () => false)).toBeUndefined();
  });
});
