/**
 * A target's teardown (teardown.ts) and the sh hook that takes its outcome (handlers/destroy-hook.sh): in a destroy of
 * the whole state it removes every listed object in one run and leaves each outcome under the run, by the object's
 * lifecycle name, opened by the request the object's own hook makes (compared field by field in sh); the hook prints
 * that outcome and exits with its code, no leader and no Node start; outside such a destroy it removes nothing.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../../../../src/core/clock';
import {
  outcomeText,
  terraformJson,
  runKey,
  teardown,
  teardownObjects,
  terraformRun,
  type TeardownPorts,
} from '../../../../../src/core/destroy-relay';
import { widgetDomain, type WidgetWorld } from '../fake-domain';

const SCRIPT = join(__dirname, '../../../../../handlers/destroy-hook.sh');
const [SH = 'dash', ...SH_ARGS] = (process.env.HOOK_SH ?? 'dash').split(' ');

// A lifecycle's stored input, and `jsonencode(self.input)` of it, as its hook gets it.
const stored = (id: string) => JSON.stringify({ identity: { id }, target: 'a' });
const lifecycle = (id: string) => JSON.stringify(stored(id));
const shared = { HOMELAB_STACK: 'st', HOMELAB_TARGET: JSON.stringify({ shelf: 'a' }), HOMELAB_TARGET_LABEL: 'a' };
const objectEnv = (id: string): Record<string, string> => ({
  HOMELAB_KIND: 'widget',
  HOMELAB_LIFECYCLE: lifecycle(id),
  ...shared,
});
/** What the object's own hook has: its request's fields, and its lifecycle's name. */
const hookEnv = (id: string): Record<string, string> => ({ ...objectEnv(id), HOMELAB_OBJECT: `${id}_lifecycle` });
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** One part's two variables: the objects as the code has them, and the digest of their inputs as the state does. */
const part = (index: number, ids: readonly string[], state = ids.map(stored)) => ({
  [`HOMELAB_TEARDOWN_FIELDS_${index}`]: JSON.stringify(
    Object.fromEntries(ids.map((id) => [`${id}_lifecycle`, { input: stored(id), fields: { HOMELAB_KIND: 'widget' } }])),
  ),
  [`HOMELAB_TEARDOWN_${index}`]: sha256(state.join('\n')),
});
/** The teardown's variables for `ids`, in two parts. */
const teardownEnv = (ids: readonly string[], data: string): NodeJS.ProcessEnv => ({
  ...shared,
  TF_DATA_DIR: data,
  ...part(0, ids.slice(0, 2)),
  ...(ids.length > 2 ? part(1, ids.slice(2)) : {}),
});

let data: string;
let relay: string;
beforeEach(() => {
  data = mkdtempSync(join(tmpdir(), 'teardown-'));
  relay = join(data, 'cdktf-homelab-relay');
});
afterEach(() => rmSync(data, { recursive: true, force: true }));

/** This jest process plays Terraform: the sh hooks it starts find it as their run, as a hook finds Terraform. */
const thisRun = terraformRun(process.pid);
const ports = (argv: string[]): TeardownPorts => ({ run: () => thisRun, argv: () => argv });
const world = (): WidgetWorld => ({ live: new Map(['w0', 'w1', 'w2', 'stuck'].map((id) => [id, 1])), calls: [] });

const run = async (live: WidgetWorld, env: NodeJS.ProcessEnv, argv: string[]) => {
  const lines: string[] = [];
  const context = { env, log: (line: string) => void lines.push(line), clock: systemClock };
  const code = await teardown(widgetDomain(live), context, context.log, ports(argv));
  return { code, lines };
};

/** The real sh hook for `env`'s object, with a stand-in bundle that says it ran and exits 7. */
const hook = (env: Record<string, string>) => {
  const bundle = join(data, 'bundle.js');
  writeFileSync(bundle, "process.stderr.write('node hook ran\\n'); process.exit(7);");
  return spawnSync(SH, [...SH_ARGS, SCRIPT, bundle, 'widgets', 'destroy'], {
    env: { PATH: process.env.PATH, TF_DATA_DIR: data, ...env },
    encoding: 'utf8',
  });
};

describe('teardownObjects', () => {
  test("lists each part whose inputs the state holds as the code does, with each hook's request fields", () => {
    const env = { ...teardownEnv(['w0', 'w1', 'w2'], data) };
    expect(teardownObjects(env)).toEqual({
      objects: ['w0', 'w1', 'w2'].map((id) => ({ name: `${id}_lifecycle`, fields: objectEnv(id) })),
      skipped: 0,
    });
  });

  test('a part whose state differs (an object added or changed in the code only, an older state) is left', () => {
    const changed = { ...shared, ...part(0, ['w0', 'w1'], [stored('w0')]), ...part(1, ['w2']) };
    expect(teardownObjects(changed)).toEqual({
      objects: [{ name: 'w2_lifecycle', fields: objectEnv('w2') }],
      skipped: 1,
    });
    const older = { ...shared, ...part(0, ['w0']), HOMELAB_TEARDOWN_0: '' };
    expect(teardownObjects(older)).toEqual({ objects: [], skipped: 1 });
  });

  test('a field no destroy hook sets is refused, naming it', () => {
    const fields = JSON.stringify({ w0_lifecycle: { input: stored('w0'), fields: { PATH: '/tmp' } } });
    const env = { ...teardownEnv(['w0'], data), HOMELAB_TEARDOWN_FIELDS_0: fields };
    expect(() => teardownObjects(env)).toThrow('w0_lifecycle sets PATH, which no destroy hook sets');
  });

  test("a string's jsonencode is Terraform's, HTML-safe escapes and all (terraform console 1.11.4)", () => {
    expect(terraformJson('a<b>&c\u2028d"e\\f\u007fg\u00e9h\u0001')).toBe(
      '"a\\u003cb\\u003e\\u0026c\\u2028d\\"e\\\\f\u007fg\u00e9h\\u0001"',
    );
  });

  test("an outcome opens with the request's set fields, in its order, each a line", () => {
    const env = { ...objectEnv('w1'), HOMELAB_ADOPT: 'true' };
    expect(outcomeText(env, { code: 3, lines: ['one', 'two'] })).toBe(
      [
        'qHOMELAB_KIND=widget',
        'qHOMELAB_STACK=st',
        `qHOMELAB_LIFECYCLE=${lifecycle('w1')}`,
        'qHOMELAB_TARGET={"shelf":"a"}',
        'qHOMELAB_TARGET_LABEL=a',
        'qHOMELAB_ADOPT=true',
        'lone',
        'ltwo',
        'x3',
        '',
      ].join('\n'),
    );
  });
});

describe('a teardown', () => {
  test('in a destroy of the whole state removes all in one run and leaves each outcome for its hook', async () => {
    const live = world();
    mkdirSync(join(relay, 'done.999999999.1'), { recursive: true, mode: 0o700 });
    const ids = ['w0', 'w1', 'stuck'];
    const ran = await run(live, teardownEnv(ids, data), ['terraform', 'destroy', '-auto-approve']);
    expect(ran).toEqual({
      code: 0,
      lines: ["teardown of a: 3 object(s) in one run, 1 failed; each object's destroy says its own outcome"],
    });
    expect([...live.live.keys()]).toEqual(['w2', 'stuck']);
    expect(live.calls).toEqual(['connect a', 'close']);
    // A dead run's folder is swept; this run's holds an outcome per object.
    const done = `done.${runKey(thisRun ?? { pid: 0, start: '' })}`;
    expect(readdirSync(relay)).toEqual([done]);
    expect(readdirSync(join(relay, done)).sort()).toEqual(ids.map((id) => `${id}_lifecycle`).sort());

    const taken = hook(hookEnv('w0'));
    expect([taken.status, taken.stderr]).toEqual([0, '']);
    const failed = hook(hookEnv('stuck'));
    expect([failed.status, failed.stderr]).toEqual([
      1,
      'widget destroy: Widget not removed: the server said: line two; Host: h1\n',
    ]);
    expect(hook(hookEnv('w1')).status).toBe(0);
    // Each outcome is taken once, and the last takes the run's folder with it.
    expect(readdirSync(relay)).toEqual([]);
    // No outcome for w2: its hook goes on to the leader's path (here the stand-in Node hook, which it became).
    const alone = hook(hookEnv('w2'));
    expect([alone.status, alone.stderr]).toEqual([7, 'node hook ran\n']);
  });

  test('whose Terraform is gone by its end (killed) leaves no outcome behind: no hook will come for it', async () => {
    const live = world();
    let asked = 0;
    const gone: TeardownPorts = {
      run: () => thisRun,
      argv: () => (asked++ === 0 ? ['terraform', 'destroy'] : undefined),
    };
    const context = { env: teardownEnv(['w0', 'w1'], data), log: () => undefined, clock: systemClock };
    expect(await teardown(widgetDomain(live), context, context.log, gone)).toBe(0);
    expect([...live.live.keys()]).toEqual(['w2', 'stuck']);
    expect(readdirSync(relay)).toEqual([]);
  });

  test.each([
    [['terraform', 'destroy', '-target=terraform_data.w0_lifecycle'], 'a targeted destroy'],
    [['terraform', 'apply', '-auto-approve'], 'an apply (a replace, a target removed)'],
  ])('in %j (%s) removes nothing and says so', async (argv) => {
    const live = world();
    const ran = await run(live, teardownEnv(['w0', 'w1'], data), argv);
    expect(ran.lines).toEqual(["teardown of a: not a destroy of the whole state; each object's destroy removes it"]);
    expect(live.live.size).toBe(4);
    expect(live.calls).toEqual([]);
    expect(existsSync(relay) ? readdirSync(relay) : []).toEqual([]);
  });

  test('with a data dir others may write removes nothing: its outcomes could be forged', async () => {
    const live = world();
    execFileSync('chmod', ['0777', data]);
    const ran = await run(live, teardownEnv(['w0'], data), ['terraform', 'destroy']);
    expect(ran.lines[0]).toMatch(/not a destroy of the whole state/);
    expect(live.live.size).toBe(4);
  });

  test('a variable it cannot read stops it before any object: each hook then removes its own', async () => {
    const live = world();
    const env = { ...teardownEnv(['w0'], data), HOMELAB_TEARDOWN_FIELDS_1: '{"w1_lifecycle": 3}' };
    const ran = await run(live, env, ['terraform', 'destroy']);
    expect(ran.code).toBe(0);
    expect(ran.lines[0]).toMatch(
      /^teardown of a stopped: .*HOMELAB_TEARDOWN_FIELDS_1.*; each object's destroy removes what it/,
    );
    expect(live.live.size).toBe(4);
  });
});

describe("the sh hook's reading of an outcome", () => {
  /** An outcome for `fields` under this run's folder, named `name`, as a teardown writes it. */
  const leave = (name: string, fields: Record<string, string>, outcome = { code: 0, lines: ['gone'] }) => {
    const done = join(relay, `done.${runKey(thisRun ?? { pid: 0, start: '' })}`);
    mkdirSync(done, { recursive: true, mode: 0o700 });
    writeFileSync(join(done, name), outcomeText(fields, outcome), { mode: 0o600 });
    return done;
  };
  const NODE_HOOK = [7, 'node hook ran\n'];

  test('takes the outcome of exactly its request, quotes, backslashes and dollars alike, and takes it once', () => {
    const fields = { ...objectEnv('w"1\\ $x `y`'), HOMELAB_DECLARED: '{"name":"a b"}' };
    const done = leave('w1_lifecycle', fields, { code: 4, lines: ['first', ' two  spaces '] });
    const taken = hook({ ...fields, HOMELAB_OBJECT: 'w1_lifecycle' });
    expect([taken.status, taken.stderr]).toEqual([4, 'first\n two  spaces \n']);
    expect(existsSync(done)).toBe(false);
  });

  test('with a rm that knows no -d takes the outcome once all the same; the folder waits for the sweep', () => {
    const bin = join(data, 'bin');
    mkdirSync(bin);
    // A rm that refuses -d as an unknown option and removes nothing (a small rm may lack it); plain rm otherwise.
    const refuse = `case "$1" in -*d*) echo "rm: invalid option -- 'd'" >&2; exit 1 ;; esac`;
    const rm = `#!/bin/sh\n${refuse}\nexec /bin/rm "$@"\n`;
    writeFileSync(join(bin, 'rm'), rm, { mode: 0o755 });
    const done = leave('w1_lifecycle', objectEnv('w1'));
    const env = { ...objectEnv('w1'), HOMELAB_OBJECT: 'w1_lifecycle', PATH: `${bin}:${process.env.PATH}` };
    expect([hook(env).status, readdirSync(done)]).toEqual([0, []]);
    expect(hook(env).status).toBe(7);
  });

  test.each([
    ['a field of another value', { HOMELAB_LIFECYCLE: lifecycle('w2') }, {}],
    ['a field the outcome has and the hook does not', { HOMELAB_ADOPT: 'true' }, {}],
    ['a field the hook has and the outcome does not', {}, { HOMELAB_ADOPT: 'true' }],
    ['a value with a newline, on both sides', { HOMELAB_DECLARED: 'a\nb' }, { HOMELAB_DECLARED: 'a\nb' }],
  ])('leaves an outcome for another request (%s) to the leader', (_, inFile, inHook) => {
    leave('w1_lifecycle', { ...objectEnv('w1'), ...inFile });
    const ran = hook({ ...objectEnv('w1'), ...inHook, HOMELAB_OBJECT: 'w1_lifecycle' });
    expect([ran.status, ran.stderr]).toEqual(NODE_HOOK);
  });

  test('never takes a name that is not a lifecycle name as a path, nor an outcome cut short', () => {
    leave('w1_lifecycle', objectEnv('w1'));
    const done = leave('x', objectEnv('w1'));
    expect([hook({ ...objectEnv('w1'), HOMELAB_OBJECT: '../x' }).status, readdirSync(done).length]).toEqual([7, 2]);
    writeFileSync(join(done, 'w1_lifecycle'), outcomeText(objectEnv('w1'), { code: 0, lines: [] }).replace('x0\n', ''));
    expect(hook({ ...objectEnv('w1'), HOMELAB_OBJECT: 'w1_lifecycle' }).status).toBe(7);
  });
});
