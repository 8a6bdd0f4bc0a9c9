/**
 * What a first apply costs at scale: `terraform apply` from an empty state of N metric servers, KubeRepos and
 * systemd units, absent on the target, beside N bare `terraform_data` in the same run (issue target: 3x), with the
 * handler's share and, for metric servers and units, destroy (issue 30 target: 3x).
 * BENCH_RUNS (3), BENCH_APPLY_{PVE,KUBE,UNIT}_SIZES (1000, 300, 200).
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { CdktfProject } from '../test/support/cdktf-project';
import { applyPhases, mustSucceed, runStamped, type ApplyPhases } from './apply-scale-run';
import { kubeTarget, pveTarget, unitTarget, type ApplyTarget } from './apply-scale-targets';
import { bareStack, SCALE_STACK } from './plan-scale-objects';
import { loadText, median, parseSizes, type Size } from './scale-runs';

const APP = 'build/bench/plan-scale-app.js';
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const APPLY = ['apply', '-auto-approve', '-no-color'];
const DESTROY = ['destroy', '-auto-approve', '-no-color'];

interface Row {
  readonly kind: string;
  readonly n: number;
  readonly load: number;
  readonly apply: number[];
  readonly bare: number[];
  readonly phases: ApplyPhases[];
  readonly barePlan: number[];
  readonly destroy: number[];
  readonly bareDestroy: number[];
  readonly reloads: number[];
  readonly destroyReloads: number[];
  /** Runs after which the target did not hold all N objects (or, after destroy, still held some). */
  readonly incomplete: string[];
}

const log = (line: string): void => void process.stderr.write(`[apply-scale] ${line}\n`);

/** Deletes the state (cdktf's `terraform.<stack>.tfstate` in the project, terraform's in the stack). */
const removeState = (...dirs: string[]): void => {
  for (const dir of dirs)
    for (const name of readdirSync(dir).filter((file) => /^terraform(\.[\w-]+)?\.tfstate/.test(file)))
      rmSync(join(dir, name));
};

/** One managed first apply (and destroy, for units), checked against what the target then holds. */
const managedRun = async (target: ApplyTarget, project: CdktfProject, row: Row, label: string) => {
  removeState(project.dir, project.stackDir);
  const reloads = await target.countReloads?.();
  const applied = mustSucceed(`${label} apply`, await runStamped(project.stackDir, target.env, APPLY));
  if (reloads) row.reloads.push(await reloads());
  const phases = applyPhases(applied);
  row.apply.push(applied.seconds);
  row.phases.push(phases);
  const present = await target.present();
  if (present !== row.n) row.incomplete.push(`${label}: ${present} of ${row.n} after apply`);
  const handler = `handler ${phases.handler.toFixed(2)} s (terraform: ${phases.handlerReported} s)`;
  log(`${label}: apply ${applied.seconds.toFixed(2)} s, plan ${phases.plan.toFixed(2)} s, ${handler}`);
  if (target.destroys) {
    const destroyReloads = await target.countReloads?.();
    const destroyed = mustSucceed(`${label} destroy`, await runStamped(project.stackDir, target.env, DESTROY));
    if (destroyReloads) row.destroyReloads.push(await destroyReloads());
    row.destroy.push(destroyed.seconds);
    const left = await target.present();
    if (left !== 0) row.incomplete.push(`${label}: ${left} left after destroy`);
    log(`${label}: destroy ${destroyed.seconds.toFixed(2)} s`);
  }
  await target.reset();
};

/** N bare `terraform_data` from an empty state: terraform's own cost for N resources. */
const bareRun = async (target: ApplyTarget, project: CdktfProject, row: Row, label: string) => {
  removeState(project.stackDir);
  const applied = mustSucceed(`${label} bare apply`, await runStamped(project.stackDir, {}, APPLY));
  row.bare.push(applied.seconds);
  row.barePlan.push(applyPhases(applied).plan);
  if (target.destroys) {
    const destroyed = mustSucceed(`${label} bare destroy`, await runStamped(project.stackDir, {}, DESTROY));
    row.bareDestroy.push(destroyed.seconds);
  }
  const destroyed = target.destroys ? `, bare destroy ${row.bareDestroy.at(-1)?.toFixed(2)} s` : '';
  log(`${label}: bare apply ${applied.seconds.toFixed(2)} s${destroyed}`);
};

const measure = async (target: ApplyTarget, { n, runs }: Size): Promise<Row> => {
  const managed = new CdktfProject(APP, SCALE_STACK, target.env);
  const bare = new CdktfProject(APP, SCALE_STACK, {});
  const row: Row = {
    kind: target.kind,
    n,
    load: loadavg()[0] ?? NaN,
    apply: [],
    bare: [],
    phases: [],
    barePlan: [],
    destroy: [],
    bareDestroy: [],
    reloads: [],
    destroyReloads: [],
    incomplete: [],
  };
  try {
    log(`${target.kind} N=${n}: synth and init in ${managed.dir}`);
    await managed.must('synth', managed.synth({ ...target.appEnv, BENCH_N: String(n) }));
    await managed.must('init', managed.terraform('init', '-no-color'));
    mkdirSync(bare.stackDir, { recursive: true });
    writeFileSync(join(bare.stackDir, 'cdk.tf.json'), JSON.stringify(bareStack(n)));
    await bare.must('init', bare.terraform('init', '-no-color'));
    await target.reset();
    for (let i = 0; i < runs; i += 1) {
      const label = `${target.kind} N=${n} run ${i + 1}`;
      // Managed first on even runs, bare first on odd ones: a change of load hits both alike.
      const steps = [() => managedRun(target, managed, row, label), () => bareRun(target, bare, row, label)];
      for (const step of i % 2 === 0 ? steps : steps.reverse()) await step();
    }
    return row;
  } finally {
    if (!process.env.BENCH_KEEP_DIRS) {
      managed.cleanup();
      bare.cleanup();
    }
  }
};

/** Every size of one kind on one target, started here and stopped after; a failure is logged and skipped. */
const kindRows = async (start: () => Promise<ApplyTarget>, sizes: Size[], failures: string[]): Promise<Row[]> => {
  if (sizes.length === 0) return [];
  const rows: Row[] = [];
  const target = await start();
  try {
    for (const size of sizes) rows.push(await measure(target, size));
  } catch (error) {
    failures.push(`${target.kind}: ${(error as Error).message}`);
    log(`${target.kind} FAILED: ${(error as Error).message}`);
  } finally {
    await target.stop();
  }
  return rows;
};

const seconds = (values: readonly number[]): string => (values.length === 0 ? '-' : median(values).toFixed(2));

/** The markdown table: one row per (kind, N), seconds as medians of the row's runs. */
export const tableOf = (rows: readonly Row[]): string => {
  const head = [
    '| kind | N | runs | apply (s) | bare apply (s) | apply / bare | handler (s) | destroy (s) | bare destroy (s) ' +
      '| load 1m |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  const lines = rows.map((r) => {
    const apply = median(r.apply);
    const cells = [
      r.kind,
      r.n,
      r.apply.length,
      `${apply.toFixed(2)}${r.incomplete.length === 0 ? '' : ' (incomplete)'}`,
      seconds(r.bare),
      (apply / median(r.bare)).toFixed(2),
      seconds(r.phases.map((p) => p.handler)),
      r.destroy.length === 0
        ? '-'
        : `${seconds(r.destroy)} (${(median(r.destroy) / median(r.bareDestroy)).toFixed(1)}x)`,
      seconds(r.bareDestroy),
      r.load.toFixed(2),
    ];
    return `| ${cells.join(' | ')} |`;
  });
  return [...head, ...lines].join('\n');
};

/** Where the managed apply's time goes, phase by phase (apply-scale-run.ts), beside the bare plan. */
export const phasesTableOf = (rows: readonly Row[]): string => {
  const head = [
    '| kind | N | plan (s) | of it the read (s) | bare plan (s) | lifecycles created (s) | handler (s) ' +
      "| terraform's handler figure (s) | rest (s) | daemon-reloads apply / destroy |",
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  const phase = (r: Row, key: keyof ApplyPhases) => seconds(r.phases.map((p) => p[key]));
  const lines = rows.map((r) => {
    const reloads = r.reloads.length === 0 ? '-' : `${median(r.reloads)} / ${median(r.destroyReloads)}`;
    const cells = [r.kind, r.n, phase(r, 'plan'), phase(r, 'read'), seconds(r.barePlan), phase(r, 'lifecycles')];
    cells.push(phase(r, 'handler'), phase(r, 'handlerReported'), phase(r, 'rest'), reloads);
    return `| ${cells.join(' | ')} |`;
  });
  return [...head, ...lines].join('\n');
};

/** Issue 30 item 2: a destroy of N objects at most 3x the destroy of N bare terraform_data. */
const DESTROY_TARGET = 3;

/** Each destroy's ratio against its target, one line a row, the row's load beside it. */
export const destroyTargets = (rows: readonly Row[]): string[] =>
  rows.flatMap((r) => {
    if (r.destroy.length === 0) return [];
    const ratio = median(r.destroy) / median(r.bareDestroy);
    const verdict = ratio <= DESTROY_TARGET ? 'met' : 'missed';
    return [
      `destroy of ${r.n} ${r.kind}: ${seconds(r.destroy)} s against ${seconds(r.bareDestroy)} s bare, ` +
        `${ratio.toFixed(2)}x (target ${DESTROY_TARGET}x: ${verdict}; load ${r.load.toFixed(2)})`,
    ];
  });

const main = async () => {
  const startLoad = loadText();
  const env = process.env;
  const failures: string[] = [];
  const rows = [
    ...(await kindRows(pveTarget, parseSizes(env.BENCH_APPLY_PVE_SIZES ?? '1000', RUNS), failures)),
    ...(await kindRows(kubeTarget, parseSizes(env.BENCH_APPLY_KUBE_SIZES ?? '300', RUNS), failures)),
    ...(await kindRows(unitTarget, parseSizes(env.BENCH_APPLY_UNIT_SIZES ?? '200', RUNS), failures)),
  ];
  console.log(`load average (1m 5m 15m): ${startLoad} at start, ${loadText()} at end; runs alternate managed and bare`);
  console.log(tableOf(rows));
  console.log('\nWhere the apply goes (medians; the phases of apply-scale-run.ts):\n');
  console.log(phasesTableOf(rows));
  for (const line of destroyTargets(rows)) console.log(line);
  for (const note of rows.flatMap((r) => r.incomplete)) console.log(`incomplete: ${note}`);
  for (const failure of failures) console.error(`apply-scale: ${failure}`);
  if (failures.length > 0) process.exit(1);
};

void main();
