import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { basename, join } from 'node:path';
import { runHandler } from '../../../../src/core/handler-cli';
import { destroyEnv } from '../../../support/run-handler';
import { widgetDomain, type WidgetWorld } from './fake-domain';

let world: WidgetWorld;
beforeEach(() => {
  world = { live: new Map([['w1', 1]]), calls: [] };
});

const call = async (argv: string[], stdin = '', env: NodeJS.ProcessEnv = {}) => {
  const out: string[] = [];
  const log: string[] = [];
  const code = await runHandler(widgetDomain(world), argv, {
    stdin: async () => stdin,
    env,
    out: (s) => out.push(s),
    log: (l) => log.push(l),
  });
  return { code, out, log };
};

describe('runHandler', () => {
  test('batch read takes the query on stdin and prints the flat result as one JSON object', async () => {
    const query = JSON.stringify({ '.target': '{"shelf":"a"}', one: '{"kind":"widget","spec":{"id":"w1","size":1}}' });
    const { code, out } = await call(['batch', 'read'], query);
    expect(code).toBe(0);
    expect(JSON.parse(out[0] ?? '')).toEqual({
      '.drifted': '',
      'one.in_sync': 'true',
      'one.summary': 'widget w1 is in sync',
      'one.diff': '{}',
      '.in_sync': 'true',
      '.summary': 'all 1 objects are in sync',
      '.converges': 'true',
    });
  });

  test('batch apply reads the target and drifted names from the environment; none drifted, no connection', async () => {
    const result = await call(['batch', 'apply'], '', { HOMELAB_TARGET: '{"shelf":"a"}', HOMELAB_DRIFTED: '' });
    expect(result).toEqual({ code: 0, out: [], log: ['shelf a: every object is in sync, nothing to apply'] });
    expect(world.calls).toEqual([]);
  });

  test('batch apply applies each drifted object from its numbered entry over one connection', async () => {
    const result = await call(['batch', 'apply'], '', {
      HOMELAB_TARGET: '{"shelf":"a"}',
      HOMELAB_DRIFTED: 'site_w2',
      HOMELAB_OBJECT_0: '{"kind":"widget","spec":{"id":"w2","size":3}}',
    });
    expect(result).toEqual({ code: 0, out: [], log: ['site_w2: widget w2: setting size 3'] });
    expect(world.live.get('w2')).toBe(3);
    expect(world.calls).toEqual(['connect a', 'close']);
  });

  test('a human reads one object from stdin and gets its reading', async () => {
    const { code, out } = await call(
      ['widget', 'read'],
      JSON.stringify({ target: { shelf: 'a' }, spec: { id: 'w1', size: 3 } }),
    );
    expect(code).toBe(0);
    expect(JSON.parse(out[0] ?? '')).toEqual({
      in_sync: 'false',
      summary: 'widget w1 differs',
      diff: '{"size":{"live":1,"want":3}}',
    });
  });

  test("apply takes target and spec from the hooks' environment and logs its progress", async () => {
    const result = await call(['widget', 'apply'], '', {
      HOMELAB_TARGET: '{"shelf":"a"}',
      HOMELAB_SPEC: '{"id":"w2","size":3}',
    });
    expect(result).toEqual({ code: 0, out: [], log: ['widget w2: setting size 3'] });
    expect(world.live.get('w2')).toBe(3);
  });

  test('a failure is one stderr line with the labelled context, and exit code 1', async () => {
    const result = await call(['widget', 'destroy'], '', destroyEnv({ shelf: 'a' }, { id: 'stuck' }));
    expect(result).toEqual({
      code: 1,
      out: [],
      log: ['widget destroy: Widget not removed: the server said: line two; Host: h1'],
    });
  });

  test.each([
    ['an empty identity', destroyEnv({ shelf: 'a' }, {}), /^widget destroy: Bad input: identity\.id: /],
    [
      'a stored input that is not JSON',
      { ...destroyEnv({ shelf: 'a' }, { id: 'w1' }), HOMELAB_LIFECYCLE: '"nope"' },
      /HOMELAB_LIFECYCLE is not JSON/,
    ],
    ['a target of the wrong shape', destroyEnv({ shelf: 1 }, { id: 'w1' }), /Bad input: target\.shelf: /],
  ])('destroy refuses %s with exit 1 instead of reporting the object gone', async (_, env, message) => {
    const result = await call(['widget', 'destroy'], '', env);
    expect(result.code).toBe(1);
    expect(result.log[0]).toMatch(message);
    expect(world.live.has('w1')).toBe(true);
  });

  test.each([
    ['apply', { HOMELAB_TARGET: '{"shelf":"a"}', HOMELAB_SPEC: '{"id":"w2","size":"big"}' }, /Bad input: spec\.size/],
    ['destroy', destroyEnv({ shelf: 'a' }, {}), /Bad input: identity\.id/],
  ])('%s refuses a bad input before it connects to the target', async (verb, env, message) => {
    const result = await call(['widget', verb], '', env);
    expect(result.log[0]).toMatch(message);
    expect(world.calls).toEqual([]);
  });

  test('a huge bad value is cut, so the error stays one bounded line', async () => {
    const result = await call(
      ['widget', 'read'],
      JSON.stringify({ target: { shelf: 'a' }, spec: { id: 'x'.repeat(5_000_000), size: 'big' } }),
    );
    expect(result.code).toBe(1);
    expect(result.log).toHaveLength(1);
    expect(result.log[0]?.length).toBeLessThan(2100);
  });

  test('an unknown kind or verb prints the usage and exits 2', async () => {
    expect(await call(['gadget', 'read'])).toEqual({
      code: 2,
      out: [],
      log: [
        'gadget read: unknown kind or verb; usage: <widget> <read|apply|destroy>, or batch read|recheck|apply|teardown',
      ],
    });
    expect((await call(['widget', 'fix'])).code).toBe(2);
    expect((await call(['batch', 'destroy'])).code).toBe(2);
  });

  test('an unknown kind is printed with its control characters escaped', async () => {
    const result = await call(['gad\u001b[2Jget', 'read']);
    expect(result.code).toBe(2);
    expect(result.log[0]).toMatch(/^gad\\x1b\[2Jget read: unknown kind or verb;/);
  });

  test('missing input names where it was expected', async () => {
    const result = await call(['widget', 'apply']);
    expect(result.log[0]).toMatch(/Missing input: stdin is empty/);
  });
});

describe('batch read in a destroy of the whole state', () => {
  const query = JSON.stringify({ '.target': '{"shelf":"a"}', one: '{"kind":"widget","spec":{"id":"w1","size":1}}' });
  const read = (stdin: string, whole: boolean) => {
    const out: string[] = [];
    const io = { stdin: async () => stdin, env: {}, out: (o: string) => out.push(o), log: () => undefined };
    return runHandler(widgetDomain(world), ['batch', 'read'], { ...io, wholeDestroy: () => whole }).then((code) => ({
      code,
      result: out[0] === undefined ? undefined : (JSON.parse(out[0]) as Record<string, string>),
    }));
  };

  test('reads nothing: no connection, each object not in sync, saying why', async () => {
    const { code, result } = await read(query, true);
    expect(code).toBe(0);
    expect(world.calls).toEqual([]);
    expect(result).toMatchObject({
      'one.in_sync': 'false',
      'one.summary': 'not read: a destroy of the whole state',
      'one.diff': '{}',
      '.drifted': 'one',
      '.in_sync': 'false',
    });
    expect((await read(query, false)).result?.['one.in_sync']).toBe('true');
    expect(world.calls).toEqual(['connect a', 'fetch w1', 'close']);
  });

  test('still checks the query: a target its schema refuses fails the read', async () => {
    const { code } = await read(JSON.stringify({ '.target': '{"shelf":7}' }), true);
    expect(code).toBe(1);
  });
});

describe('batch read sweeps what a killed destroy left in the relay folder', () => {
  const query = JSON.stringify({ '.target': '{"shelf":"a"}', one: '{"kind":"widget","spec":{"id":"w1","size":1}}' });
  let data: string;
  beforeEach(() => {
    data = mkdtempSync(join(tmpdir(), 'sweep-'));
  });
  afterEach(() => rmSync(data, { recursive: true, force: true }));

  test("a leader's lock and FIFO, a hook's files, outcomes of gone processes go; a live one's stay", async () => {
    const relay = join(data, 'cdktf-homelab-relay');
    mkdirSync(relay, { mode: 0o700 });
    // A process that has ended: its pid names nothing now (a Ctrl-C during a leader's Node start left these).
    const dead = spawnSync('true').pid;
    writeFileSync(join(relay, 'linux.lead'), `${dead}\n`);
    writeFileSync(join(relay, `linux.${dead}.in`), '');
    writeFileSync(join(relay, `h${dead}.req`), '');
    mkdirSync(join(relay, `done.${dead}.4242`));
    writeFileSync(join(relay, `done.${dead}.4242`, 'a'.repeat(64)), 'x0\n');
    writeFileSync(join(relay, `linux.${process.pid}.in`), '');
    const { code } = await call(['batch', 'read'], query, { TF_DATA_DIR: data });
    expect(code).toBe(0);
    expect(readdirSync(relay)).toEqual([`linux.${process.pid}.in`]);
  });

  test("a SIGKILLed leader's socket goes (refused twice); a live leader's stays", async () => {
    const relay = join(data, 'cdktf-homelab-relay');
    mkdirSync(relay, { mode: 0o700 });
    const stale = join(relay, `${'a'.repeat(24)}.sock`);
    // A leader SIGKILLed while it listens: its socket file stays, nothing listens on it.
    const leader = "require('net').createServer().listen(process.argv[1], () => process.kill(process.pid, 'SIGKILL'))";
    expect(spawnSync(process.execPath, ['-e', leader, stale]).signal).toBe('SIGKILL');
    const live = join(relay, `${'b'.repeat(24)}.sock`);
    const server = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(live, resolve));
    try {
      expect(readdirSync(relay).sort()).toEqual([basename(stale), basename(live)]);
      expect((await call(['batch', 'read'], query, { TF_DATA_DIR: data })).code).toBe(0);
      expect(readdirSync(relay)).toEqual([basename(live)]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('a data dir without a relay folder gets none', async () => {
    expect((await call(['batch', 'read'], query, { TF_DATA_DIR: data })).code).toBe(0);
    expect(readdirSync(data)).toEqual([]);
  });
});
