/**
 * Issue 26 class 4: terraform interrupted kills the local-exec hook's shell, and the Node handler
 * kept running orphaned, reloading node after node. The PVE bundle's batch apply (a metric server,
 * a network apply over three nodes with a slow reload, a metric server after it), run under
 * `/bin/sh -c` as local-exec runs it, is stopped mid-reload by SIGTERM, by SIGINT, and by its shell
 * killed: it follows the reload already sent to its end, writes nothing more, says what it left in
 * one line, and exits non-zero within the reload's own bound.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { canonicalJson } from '../../src/core/canonical';
import { APPLY, BATCH, ENV } from '../../src/core/protocol';
import { type FakePve, startFakePve } from '../fakes/pve/server';

jest.setTimeout(60_000);

const BUNDLE = join(__dirname, '..', '..', 'build', 'handlers', 'pve.js');
const NODES = ['n1', 'n2', 'n3'];
const RELOAD_MS = 1500;
// The reload in flight is followed to its end (polled once a second), then the gate after it.
const BOUND_MS = RELOAD_MS + 3000;

let fake: FakePve;

beforeAll(() => {
  if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run \`npm run bundle\``);
});
beforeEach(async () => {
  fake = await startFakePve({ nodes: NODES });
  for (const node of NODES) {
    const { running } = fake.interfacesFiles(node);
    fake.setInterfacesFiles(node, { staged: `${running}auto vmbr7\niface vmbr7 inet manual\n` });
    fake.setReload(node, { durationMs: RELOAD_MS });
  }
});
afterEach(() => fake.stop());

const TOKEN = 'root@pam!homelab=fake-secret-0000';
const TARGET = () => ({ endpoints: [fake.url], tokenEnv: 'PROXMOX_VE_API_TOKEN', insecure: true });
const STAGED = Object.fromEntries(NODES.map((node) => [node, ['vmbr7']]));
const metrics = (id: string) => ({ id, type: 'graphite', server: '10.0.0.5', port: 2003, options: {} });
const OBJECTS: Array<[string, object]> = [
  ['m1', { kind: 'metric-server', spec: metrics('m1'), after: [] }],
  ['net', { kind: 'network-apply', spec: { nodes: NODES, timeoutSeconds: 30, interfaces: STAGED }, after: [] }],
  ['m2', { kind: 'metric-server', spec: metrics('m2'), after: ['net'] }],
];

interface Run {
  readonly shell: ChildProcess;
  /** The handler's own pid, the shell's child. */
  readonly handler: number;
  /** Resolves with everything the handler wrote to stderr once its stderr closes (it exited). */
  readonly ended: Promise<string>;
}

/** `node pve.js batch apply` under `/bin/sh -c`, as terraform's local-exec runs the target's apply. */
const startApply = async (): Promise<Run> => {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    PROXMOX_VE_API_TOKEN: TOKEN,
    [ENV.target]: canonicalJson(TARGET()),
    [APPLY.drifted]: OBJECTS.map(([name]) => name).join(','),
  };
  OBJECTS.forEach(([, entry], index) => (env[`${APPLY.objectPrefix}${index}`] = canonicalJson(entry)));
  const shell = spawn('/bin/sh', ['-c', `"${process.execPath}" "${BUNDLE}" batch apply`], { env });
  let stderr = '';
  shell.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const ended = new Promise<string>((resolve) => shell.stderr!.on('close', () => resolve(stderr)));
  const handler = await until('the handler process', () => childOf(shell.pid!));
  return { shell, handler, ended };
};

const childOf = (pid: number): number | undefined => {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return children === '' ? undefined : Number(children.split(' ')[0]);
};

const until = async <T>(what: string, probe: () => T | undefined, timeoutMs = 15_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

const writes = (from = 0) =>
  fake.requests
    .slice(from)
    .filter((r) => r.method !== 'GET')
    .map((r) => `${r.method} ${r.path.replace('/api2/json/', '')}`);

/** Starts the apply, waits for n1's reload to be sent, then interrupts it with `interrupt`. */
const interruptMidReload = async (interrupt: (run: Run) => void) => {
  const run = await startApply();
  await until('the reload of n1', () => (writes().includes('PUT nodes/n1/network') ? true : undefined));
  const mark = fake.requests.length;
  const at = Date.now();
  interrupt(run);
  const stderr = await run.ended;
  return { stderr, elapsedMs: Date.now() - at, after: writes(mark), lines: stderr.trim().split('\n') };
};

const LEFT = 'applied m1; net stopped after n1 reloaded; n2, n3 not reloaded; not started m2';

test.each(['SIGTERM', 'SIGINT'] as const)(
  '%s mid-reload: the reload sent is followed, nothing more is written, one line says what was left',
  async (signal) => {
    let code: Promise<number | null> | undefined;
    const { stderr, elapsedMs, after, lines } = await interruptMidReload((run) => {
      code = new Promise((resolve) => run.shell.on('exit', resolve));
      process.kill(run.handler, signal);
    });
    expect(after).toEqual([]);
    expect(stderr).toContain(`batch apply: ${signal}: stopping at the next safe point\n`);
    expect(stderr).toMatch(/n1: OK in \d\.\d s\n.*n1: cluster still healthy/s);
    expect(lines.at(-1)).toBe(
      `batch apply: Apply stopped: stopped by ${signal} at a safe point, nothing more was written: ${LEFT}`,
    );
    expect(await code).toBe(1);
    expect(elapsedMs).toBeLessThan(BOUND_MS);
    console.log(`${signal}: handler exited ${elapsedMs} ms after the signal`);
  },
);

test('its shell killed mid-reload: the orphaned handler stops at a safe point and writes nothing more', async () => {
  let shellPid = 0;
  const { elapsedMs, after, lines } = await interruptMidReload((run) => {
    shellPid = run.shell.pid!;
    run.shell.kill('SIGKILL');
  });
  expect(after).toEqual([]);
  expect(lines.at(-1)).toBe(
    `batch apply: Apply stopped: stopped by its parent process ${shellPid} exited at a safe point, ` +
      `nothing more was written: ${LEFT}`,
  );
  expect(elapsedMs).toBeLessThan(BOUND_MS);
  expect(fake.interfacesFiles('n2').staged).toBeDefined();
  console.log(`shell killed: orphaned handler exited ${elapsedMs} ms later`);
});

test('a run left alone applies everything (the watchers stop nothing by themselves)', async () => {
  const run = await startApply();
  const code = await new Promise((resolve) => run.shell.on('exit', resolve));
  expect(await run.ended).not.toMatch(/stop/i);
  expect(code).toBe(0);
  expect(writes().filter((w) => w.startsWith('PUT nodes/'))).toHaveLength(3);
});

test('a run that does not stop at safe points (a read) exits at once when its shell is killed', async () => {
  // The read's first request is never answered: only its parent going away ends it before its timeout.
  fake.hang('GET', /\/network$/, 10);
  const query = join(mkdtempSync(join(tmpdir(), 'handler-stop-')), 'query.json');
  const objects = { net: canonicalJson({ kind: 'network-apply', spec: { nodes: NODES, timeoutSeconds: 30 } }) };
  writeFileSync(query, JSON.stringify({ [BATCH.target]: canonicalJson(TARGET()), ...objects }));
  const shell = spawn('/bin/sh', ['-c', `"${process.execPath}" "${BUNDLE}" batch read < "$QUERY"`], {
    env: { PATH: process.env.PATH, QUERY: query, PROXMOX_VE_API_TOKEN: TOKEN },
  });
  let stderr = '';
  shell.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const ended = new Promise<void>((resolve) => shell.stderr!.on('close', () => resolve()));
  await until('the read of n1', () => (fake.requests.some((r) => r.path.endsWith('/network')) ? true : undefined));
  const at = Date.now();
  shell.kill('SIGKILL');
  await ended;
  const elapsedMs = Date.now() - at;
  expect(stderr).toBe(`batch read: its parent process ${shell.pid} exited: exiting now\n`);
  expect(elapsedMs).toBeLessThan(1000);
  console.log(`read, shell killed: handler exited ${elapsedMs} ms later`);
  rmSync(dirname(query), { recursive: true, force: true });
});

// The fault campaign's orphans: terraform SIGKILLed leaves the hook's shell running, so the handler's parent never
// changes, and a run that writes nothing (a read waiting on a server) went on until its own timeout.
test('terraform killed, the hook shell alive: a read that writes nothing exits at once all the same', async () => {
  fake.hang('GET', /\/network$/, 10);
  const dir = mkdtempSync(join(tmpdir(), 'handler-stop-'));
  const query = join(dir, 'query.json');
  const objects = { net: canonicalJson({ kind: 'network-apply', spec: { nodes: NODES, timeoutSeconds: 30 } }) };
  writeFileSync(query, JSON.stringify({ [BATCH.target]: canonicalJson(TARGET()), ...objects }));
  // A stand-in for terraform: it runs the hook's shell with piped output, prints the shell's pid, and waits.
  const terraform = [
    "const { spawn } = require('node:child_process');",
    `const sh = spawn('/bin/sh', ['-c', '"${process.execPath}" "${BUNDLE}" batch read < "$QUERY"'],`,
    "  { stdio: ['ignore', 'pipe', 'pipe'] });",
    "sh.stderr.on('data', () => {}); process.stdout.write(sh.pid + '\\n'); setInterval(() => {}, 1000);",
  ].join('\n');
  const stand = spawn(process.execPath, ['-e', terraform], {
    env: { PATH: process.env.PATH, QUERY: query, PROXMOX_VE_API_TOKEN: TOKEN },
  });
  const shellPid = await new Promise<number>((resolve) =>
    stand.stdout!.once('data', (c: Buffer) => resolve(Number(`${c}`))),
  );
  const handler = await until('the handler process', () => childOf(shellPid));
  await until('the read of n1', () => (fake.requests.some((r) => r.path.endsWith('/network')) ? true : undefined));
  const at = Date.now();
  stand.kill('SIGKILL');
  await until('the handler to exit', () => (existsSync(`/proc/${handler}`) ? undefined : true), 5000);
  const elapsedMs = Date.now() - at;
  expect(elapsedMs).toBeLessThan(1000);
  console.log(`read, terraform killed and its hook shell alive: handler exited ${elapsedMs} ms later`);
  rmSync(dir, { recursive: true, force: true });
});
