/**
 * What an object costs a plan at scale: `terraform plan` of N metric servers (fake PVE), N systemd
 * units (real host) and N Repos (real kube-apiserver), already applied so the plan is clean, beside N
 * applied bare `terraform_data` in the same run, as per-object overhead against `node -e 0` and as a
 * ratio against issue 30's target (at most 2x bare), beside the stack's lifecycles alone (the floor of that
 * ratio, plan-scale-floor.ts), plus synth of the N-object stack (cdktf, app alone).
 * BENCH_RUNS (3), BENCH_PVE_SIZES (10,100,1000), BENCH_UNIT_SIZES (10,50,200), BENCH_KUBE_SIZES (300);
 * `1000x1`: 1 run at 1000.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startPveSimulator } from '../src/simulator/pve/server';
import { startKubeApiServer } from '../test/support/kube-apiserver';
import { CdktfProject, type CommandOutcome } from '../test/support/cdktf-project';
import { startSystemdHost } from '../test/support/systemd-host';
import { makeCert } from '../test/support/tls';
import { terraformEnv } from '../test/support/toolchain';
import { standUpFloor } from './plan-scale-floor';
import { bareStack, installUnitsScript, SCALE_STACK, unitHostEnv } from './plan-scale-objects';
import { loadText as load, median, parseSizes, type Size } from './scale-runs';

const run = promisify(execFile);
// Bundled into build/bench/, two levels below the package root.
const ROOT = join(__dirname, '..', '..');
const APP = 'build/bench/plan-scale-app.js';
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const FLOOR_RUNS = 11;
// Samples of `node -e 0` beside each plan: on a shared machine the floor moves with the load.
const FLOOR_PER_RUN = 5;
/** Issue 30 item 1: a clean plan of N objects at most this many times the plan of N applied bare ones. */
const TARGET_RATIO = 2;

/** How to stand up one kind's stack: variables for the app and for terraform, and the live objects. */
interface Target {
  readonly kind: string;
  readonly appEnv: NodeJS.ProcessEnv;
  readonly env: NodeJS.ProcessEnv;
  install(n: number): Promise<void>;
}

interface Row {
  readonly kind: string;
  readonly n: number;
  readonly plan: number[];
  readonly bare: number[];
  /** Plans of the stack's lifecycles alone (plan-scale-floor.ts). */
  readonly lifecycles: number[];
  readonly floor: number[];
  readonly synth: number;
  readonly appSynth: number;
  readonly load: number;
  readonly clean: boolean;
}

const log = (line: string): void => void process.stderr.write(`[plan-scale] ${line}\n`);

const nodeFloorMs = async (count: number): Promise<number[]> => {
  const samples: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const started = process.hrtime.bigint();
    await run(process.execPath, ['-e', '0']);
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return samples;
};

/** A plan that is not clean measures the wrong thing: say what it planned instead. */
const clean = (label: string, outcome: CommandOutcome): boolean => {
  if (outcome.code === 0) return true;
  const planned = outcome.stdout.split('\n').filter((l) => /will be|must be|Plan:|Warning:|Error:/.test(l));
  log(`${label}: plan is NOT clean (exit ${outcome.code}):\n${planned.slice(0, 20).join('\n')}`);
  return false;
};

/** The app alone, without the cdktf CLI around it: what the constructs cost at synth. */
const appSynthSeconds = async (dir: string, appEnv: NodeJS.ProcessEnv): Promise<number> => {
  const started = process.hrtime.bigint();
  const env = { ...terraformEnv(), ...appEnv, CDKTF_OUTDIR: join(dir, 'app-synth.out') };
  await run(process.execPath, [join(ROOT, APP)], { env, maxBuffer: 64 << 20 });
  return Number(process.hrtime.bigint() - started) / 1e9;
};

/**
 * Plans of the stack, of the bare stack, of the stack's lifecycles alone and the node floor, alternating so a
 * change of load hits all alike.
 */
const timePlans = async (
  projects: Record<'managed' | 'bare' | 'lifecycles', CdktfProject>,
  label: string,
  runs: number,
) => {
  const times = {
    plan: [] as number[],
    bare: [] as number[],
    lifecycles: [] as number[],
    floor: [] as number[],
    clean: true,
  };
  for (let i = 0; i < runs; i += 1) {
    times.floor.push(...(await nodeFloorMs(FLOOR_PER_RUN)));
    const planned = await projects.managed.plan('plan');
    times.clean = clean(label, planned) && times.clean;
    const floor = await projects.bare.plan('bare');
    const lifecycles = await projects.lifecycles.plan('lifecycles');
    times.clean = clean(`${label} lifecycles alone`, lifecycles) && times.clean;
    times.plan.push(planned.seconds);
    times.bare.push(floor.seconds);
    times.lifecycles.push(lifecycles.seconds);
    const seconds = [planned, floor, lifecycles].map((outcome) => outcome.seconds.toFixed(2));
    log(`${label} run ${i + 1}: plan ${seconds[0]} s, bare ${seconds[1]} s, lifecycles alone ${seconds[2]} s`);
  }
  return times;
};

const measure = async (target: Target, size: Size): Promise<Row> => {
  const { n, runs } = size;
  const managed = new CdktfProject(APP, SCALE_STACK, target.env);
  const bare = new CdktfProject(APP, SCALE_STACK, {});
  const lifecycles = new CdktfProject(APP, SCALE_STACK, target.env);
  try {
    log(`${target.kind} N=${n}: synth in ${managed.dir}`);
    const appEnv = { ...target.appEnv, BENCH_N: String(n) };
    const synth = await managed.must('synth', managed.synth(appEnv));
    const appSynth = await appSynthSeconds(managed.dir, appEnv);
    log(`${target.kind} N=${n}: cdktf synth ${synth.seconds.toFixed(1)} s, app alone ${appSynth.toFixed(1)} s; apply`);
    await target.install(n);
    await managed.must('init', managed.terraform('init', '-no-color'));
    const applied = await managed.must('apply', managed.terraform('apply', '-auto-approve', '-no-color'));
    mkdirSync(bare.stackDir, { recursive: true });
    writeFileSync(join(bare.stackDir, 'cdk.tf.json'), JSON.stringify(bareStack(n)));
    await bare.must('init', bare.terraform('init', '-no-color'));
    // Applied like the managed stack, so both plans refresh N state entries: an unapplied bare plan of 1000
    // took 0.66 s against 1.16 s applied (issue 30's ratios are against applied ones).
    await bare.must('bare apply', bare.terraform('apply', '-auto-approve', '-no-color'));
    await standUpFloor(managed, lifecycles);
    log(`${target.kind} N=${n}: apply ${applied.seconds.toFixed(1)} s; ${runs} plan(s) each, alternating`);
    const startLoad = loadavg()[0] ?? NaN;
    const timed = await timePlans({ managed, bare, lifecycles }, `${target.kind} N=${n}`, runs);
    return { kind: target.kind, n, ...timed, synth: synth.seconds, appSynth, load: startLoad };
  } finally {
    if (!process.env.BENCH_KEEP_DIRS) {
      managed.cleanup();
      bare.cleanup();
      lifecycles.cleanup();
    }
  }
};

/** Every size of one kind, in order (each size's objects include the smaller ones'), then `stop`. */
const measureAll = async (target: Target, sizes: Size[], stop: () => Promise<void>): Promise<Row[]> => {
  try {
    const rows: Row[] = [];
    for (const size of sizes) rows.push(await measure(target, size));
    return rows;
  } finally {
    await stop();
  }
};

const pveRows = async (sizes: Size[]): Promise<Row[]> => {
  if (sizes.length === 0) return [];
  // TLS as on a real cluster: each read process pays its handshake.
  const cert = makeCert();
  const fake = await startPveSimulator({ tls: { key: cert.key, cert: cert.cert } });
  const target: Target = {
    kind: 'metric servers',
    appEnv: { BENCH_KIND: 'pve', BENCH_PVE_ENDPOINT: fake.url, BENCH_PVE_CA_FILE: cert.certFile },
    env: { PROXMOX_VE_API_TOKEN: 'root@pam!homelab=fake-secret-0000' },
    // The apply creates them: ones put in the fake first carry no stack's mark, so the apply refused
    // them (ownership.ts) and the bench stopped at 'apply exited 1'.
    install: async () => {},
  };
  return measureAll(target, sizes, async () => {
    await fake.stop();
    cert.cleanup();
  });
};

const unitRows = async (sizes: Size[]): Promise<Row[]> => {
  if (sizes.length === 0) return [];
  const host = await startSystemdHost({ stock: true });
  const target: Target = {
    kind: 'systemd units',
    ...unitHostEnv(host),
    install: async (n) => {
      const installed = await host.exec(installUnitsScript(n));
      if (installed.code === 0) return;
      throw new Error(`installing ${n} bench units on ${host.host}:${host.port} failed: ${installed.stderr.trim()}`);
    },
  };
  return measureAll(target, sizes, () => host.stop());
};

const kubeRows = async (sizes: Size[]): Promise<Row[]> => {
  if (sizes.length === 0) return [];
  // A real API server with the Repo CRD Established (test/support/kube-crds.ts): the read lists what a
  // user's cluster would answer, through the same client and TLS.
  const kube = await startKubeApiServer();
  const target: Target = {
    kind: 'Repos',
    appEnv: { BENCH_KIND: 'kube', BENCH_KUBECONFIG: kube.kubeconfig, BENCH_KUBE_NAMESPACE: kube.namespace },
    env: {},
    // The apply creates them, as for metric servers: a Repo put there first carries no stack's mark.
    install: async () => {},
  };
  return measureAll(target, sizes, () => kube.stop());
};

/** The markdown table: one row per (kind, N), seconds as medians of the row's runs. */
export const tableOf = (rows: Row[]): string => {
  const head = [
    '| kind | N | runs | plan (s) | bare (s) | per-object overhead (ms) | node floor (ms) | overhead / node floor ' +
      `| plan / bare (target ≤ ${TARGET_RATIO}) | lifecycles alone (s) | lifecycles alone / bare ` +
      '| cdktf synth (s) | app synth (s) | load 1m |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  const lines = rows.map((r) => {
    const plan = median(r.plan);
    const bare = median(r.bare);
    const overheadMs = ((plan - bare) / r.n) * 1000;
    const floorMs = median(r.floor);
    const cells = [
      r.kind,
      r.n,
      r.plan.length,
      `${plan.toFixed(2)}${r.clean ? '' : ' (not clean)'}`,
      bare.toFixed(2),
      overheadMs.toFixed(1),
      floorMs.toFixed(0),
      (overheadMs / floorMs).toFixed(2),
      `${(plan / bare).toFixed(1)} (${plan / bare <= TARGET_RATIO ? 'met' : 'not met'})`,
      median(r.lifecycles).toFixed(2),
      (median(r.lifecycles) / bare).toFixed(1),
      r.synth.toFixed(1),
      r.appSynth.toFixed(1),
      r.load.toFixed(2),
    ];
    return `| ${cells.join(' | ')} |`;
  });
  return [...head, ...lines].join('\n');
};

const main = async () => {
  const startLoad = load();
  const floorBefore = await nodeFloorMs(FLOOR_RUNS);
  const rows = [
    ...(await pveRows(parseSizes(process.env.BENCH_PVE_SIZES ?? '10,100,1000', RUNS))),
    ...(await unitRows(parseSizes(process.env.BENCH_UNIT_SIZES ?? '10,50,200', RUNS))),
    ...(await kubeRows(parseSizes(process.env.BENCH_KUBE_SIZES ?? '300', RUNS))),
  ];
  const floorAfter = await nodeFloorMs(FLOOR_RUNS);
  const floors = `${median(floorBefore).toFixed(0)} ms at start, ${median(floorAfter).toFixed(0)} ms at end`;
  console.log(`node floor (node -e 0, median of ${FLOOR_RUNS}): ${floors}; each row's own: ${FLOOR_PER_RUN} per run`);
  console.log(`load average (1m 5m 15m): ${startLoad} at start, ${load()} at end; runs alternate plan and bare`);
  console.log(tableOf(rows));
};

// A failed step's message carries cdktf's spinner frames: keep the lines that say something.
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*[A-Za-z]`, 'g');
const readable = (message: string): string =>
  message
    .replace(ANSI, '')
    .split('\n')
    .filter((line) => line.trim() !== '' && !/^\W*Synthesizing|^\W*Starting/.test(line))
    .join('\n');

main().catch((error: unknown) => {
  console.error(`plan-scale: ${readable((error as Error).message)}`);
  process.exit(1);
});
