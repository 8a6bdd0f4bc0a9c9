/**
 * What the sh destroy hook itself costs (handlers/destroy-hook.sh), without Terraform or a target: this process
 * leads a domain whose destroy does nothing, and BENCH_HOOKS (200) hooks run through it under dash, one after
 * another and then 10 at a time as Terraform runs them; then as many hooks each take the outcome a teardown left
 * them (a destroy of the whole state, this process playing Terraform's run). It prints wall time and the CPU the
 * hooks and the leader used, per object, beside the load, and the loop's own cost (an empty script each). A Node
 * hook cost about 160 ms of CPU (README, Limits).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod/mini';
import { systemClock } from '../src/core/clock';
import { claimedFifo, leadHooks, outcomeText, runKey, sharedDestroy, terraformRun } from '../src/core/destroy-relay';
import { defineKind, type HandlerDomain } from '../src/core/kind';

const HOOKS = Number(process.env.BENCH_HOOKS ?? 200);
const SCRIPT = join(__dirname, '..', 'handlers', 'destroy-hook.sh');

const nothing = defineKind({
  spec: z.object({ id: z.string() }),
  identity: z.object({ id: z.string() }),
  fetch: async () => undefined,
  read: () => ({ inSync: true, summary: 'nothing', diff: {} }),
  apply: async () => undefined,
  destroy: async () => undefined,
});
const domain = {
  target: z.object({ shelf: z.string() }),
  describe: () => 'nowhere',
  connect: async () => undefined,
  close: async () => undefined,
  kinds: { nothing: async () => nothing },
} satisfies HandlerDomain<undefined, { shelf: string }>;

const hookEnv = (id: string) => ({
  HOMELAB_KIND: 'nothing',
  HOMELAB_STACK: 'bench',
  HOMELAB_LIFECYCLE: JSON.stringify(JSON.stringify({ identity: { id }, target: 'a' })),
  HOMELAB_TARGET: '{"shelf":"a"}',
  HOMELAB_TARGET_LABEL: 'a',
});

/** The lifecycle name the hook `j` of round `i` takes its outcome by (set in the loop below). */
const objectName = (i: number, j: number) => `o${i}_${j}_lifecycle`;

/** Runs the hooks `at` a time in bash's `time`: its real, user and sys seconds (the hooks' CPU). */
const timed = (data: string, at: number, script = SCRIPT): Promise<number[]> => {
  const hook = `HOMELAB_OBJECT=o\${i}_\${j}_lifecycle dash '${script}' /nonexistent bench destroy || echo failed >&2`;
  const loop = `for i in $(seq ${HOOKS / at}); do for j in $(seq ${at}); do ${hook} & done; wait; done`;
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `TIMEFORMAT='%R %U %S'; time (${loop})`], {
      env: { ...process.env, ...hookEnv('x'), TF_DATA_DIR: data },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('close', () => {
      const figures = err.trim().split('\n').at(-1)?.split(' ').map(Number) ?? [];
      if (err.includes('failed') || figures.length !== 3) reject(new Error(`the hooks failed: ${err}`));
      else resolve(figures);
    });
  });
};

const ms = (seconds: number) => ((seconds * 1000) / HOOKS).toFixed(2);

/** The hooks of a destroy of the whole state: each takes the outcome a teardown left under this run, no leader. */
const outcomes = async (data: string, at: number) => {
  const run = terraformRun(process.pid);
  if (run === undefined) throw new Error('the bench cannot read its own /proc entry');
  const done = join(data, 'cdktf-homelab-relay', `done.${runKey(run)}`);
  mkdirSync(done, { mode: 0o700, recursive: true });
  for (let i = 1; i <= HOOKS / at; i += 1) {
    for (let j = 1; j <= at; j += 1) {
      writeFileSync(join(done, objectName(i, j)), outcomeText(hookEnv('x'), { code: 0, lines: ['gone'] }));
    }
  }
  const load = loadavg()[0] ?? NaN;
  const [real = NaN, user = NaN, sys = NaN] = await timed(data, at);
  console.log(
    `${HOOKS} hooks ${at} at a time, each taking a teardown's outcome: ${real.toFixed(2)} s wall ` +
      `(${ms(real)} ms an object), hooks ${(user + sys).toFixed(2)} CPU-s (${ms(user + sys)} ms an object); ` +
      `load ${load.toFixed(2)}`,
  );
};

const main = async () => {
  const data = mkdtempSync(join(process.env.TMPDIR ?? '/tmp', 'destroy-hook-bench-'));
  try {
    for (const at of [1, 10]) {
      const relay = join(data, 'cdktf-homelab-relay');
      mkdirSync(relay, { mode: 0o700, recursive: true });
      writeFileSync(join(relay, 'bench.lead'), `${process.pid}\n`);
      execFileSync('mkfifo', [join(relay, `bench.${process.pid}.in`)]);
      const lead = claimedFifo(relay, { HOMELAB_RELAY_DOMAIN: 'bench' });
      if (lead === undefined) throw new Error('the bench could not lead');
      const context = { env: hookEnv('own'), log: () => undefined, clock: systemClock };
      const load = loadavg()[0] ?? NaN;
      const cpu = process.cpuUsage();
      const work = (target: unknown) => sharedDestroy(domain, context, target);
      const led = leadHooks(domain, 'nothing', context, lead, work, { lingerMs: 2_000 });
      const [real = NaN, user = NaN, sys = NaN] = await timed(data, at);
      await led;
      const leader = process.cpuUsage(cpu);
      const leaderMs = ((leader.user + leader.system) / 1000 / HOOKS).toFixed(2);
      console.log(
        `${HOOKS} hooks ${at} at a time: ${real.toFixed(2)} s wall (${ms(real)} ms an object), hooks ` +
          `${(user + sys).toFixed(2)} CPU-s (${ms(user + sys)} ms an object), leader ${leaderMs} ms an object; ` +
          `load ${load.toFixed(2)}`,
      );
    }
    for (const at of [1, 10]) await outcomes(data, at);
    // The loop's own cost: bash starting each dash, which runs an empty script.
    const [real = NaN, user = NaN, sys = NaN] = await timed(data, 1, '/dev/null');
    console.log(`${HOOKS} empty scripts 1 at a time: ${ms(real)} ms wall, ${ms(user + sys)} ms CPU an object`);
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
};

void main();
