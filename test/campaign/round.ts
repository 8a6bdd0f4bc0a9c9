/**
 * One round of the campaign: the stack flipped to the other variant, that apply faulted, then what a user does
 * next (plan, apply, and apply again), each step checked against the targets themselves. A round converges on
 * the first or the second apply, or never (then a hand repairs the targets so the next round starts clean); a
 * plan that was clean while a target differed is a lie, whatever the apply did after it. Where handlers outlive
 * terraform, a plan started at once beside them is one more: clean, with a target differing once they end, it lied.
 */
import { describePlan, planFault, type FaultPlan } from './faults';
import { faultedApply } from './inject';
import { apply, plan, synth, verify, type Stand } from './stand';
import { otherVariant, type Variant } from './variant';

export type Outcome = 'first' | 'second' | 'never';

export interface RoundResult {
  readonly round: number;
  readonly variant: Variant;
  readonly plan: FaultPlan;
  readonly landed: boolean;
  readonly outcome: Outcome;
  /** The steps after which a plan was clean while the targets differed, with what differed. */
  readonly lies: string[];
  /** What differed after the fault, and after each apply that did not converge. */
  readonly findings: string[];
  readonly orphans: string[];
  /** The exit of the plan run beside them (inject.ts `planBesideOrphans`). */
  readonly planBesideOrphans?: number;
  readonly seconds: number;
}

/** The variant round `round` applies: round 1 flips the stand's starting variant `a` to `b`, and so on. */
export const variantOf = (round: number): Variant => (round % 2 === 1 ? 'b' : 'a');
export const startingVariant = (round: number): Variant => otherVariant(variantOf(round));

const clip = (text: string, lines = 12) => text.trim().split('\n').slice(-lines).join('\n');

interface Step {
  readonly diffs: string[];
  readonly planCode: number;
}

/** The targets against `v`, then a plan; a clean plan with differences is a lie. */
const check = async (stand: Stand, v: Variant, label: string, lies: string[]): Promise<Step> => {
  const diffs = await verify(stand, v);
  const planned = await plan(stand);
  if (planned.code === 0 && diffs.length > 0) lies.push(`${label}: the plan was clean while ${diffs.join('; ')}`);
  return { diffs, planCode: planned.code };
};

const converged = (step: Step, applied: number) => applied === 0 && step.diffs.length === 0 && step.planCode === 0;

/** Runs round `round` against a stand that holds its starting variant, converged. */
export const runRound = async (stand: Stand, seed: number, round: number, log: (line: string) => void) => {
  const started = Date.now();
  const v = variantOf(round);
  const fault = planFault(seed, round);
  await synth(stand, v);
  const injected = await faultedApply(stand, fault);
  const lies: string[] = [];
  const findings: string[] = [];
  const after = await check(stand, v, 'after the fault', lies);
  if (after.diffs.length > 0) findings.push(`after the fault: ${after.diffs.join('; ')}`);
  if (injected.planBesideOrphans === 0 && after.diffs.length > 0)
    lies.push(`a plan beside the handlers that outlived terraform was clean while ${after.diffs.join('; ')}`);
  let outcome: Outcome = 'never';
  for (const [attempt, name] of [
    [1, 'first'],
    [2, 'second'],
  ] as const) {
    const applied = await apply(stand);
    const step = await check(stand, v, `after the ${name} apply`, lies);
    if (converged(step, applied.code)) {
      outcome = name;
      break;
    }
    findings.push(
      `after the ${name} apply (exit ${applied.code}, plan exit ${step.planCode}): ` +
        `${step.diffs.join('; ') || 'the targets matched'}\n${clip(`${applied.stdout}\n${applied.stderr}`)}`,
    );
    if (attempt === 2) break;
  }
  const result: RoundResult = {
    round,
    variant: v,
    plan: fault,
    landed: injected.landed || injected.exitCode !== 0,
    outcome,
    lies,
    findings,
    orphans: injected.orphans,
    ...(injected.planBesideOrphans === undefined ? {} : { planBesideOrphans: injected.planBesideOrphans }),
    seconds: (Date.now() - started) / 1000,
  };
  log(
    `round ${round} (${v}): ${describePlan(fault)}: ${result.landed ? 'landed' : 'missed'}, ` +
      `terraform exit ${injected.exitCode}, converged ${outcome}${lies.length > 0 ? ', PLAN LIED' : ''}` +
      `${injected.orphans.length > 0 ? `, ${injected.orphans.length} orphan handler(s)` : ''}` +
      `${injected.planBesideOrphans === undefined ? '' : `, a plan beside them exit ${injected.planBesideOrphans}`}` +
      ` (${result.seconds.toFixed(0)} s)`,
  );
  return result;
};
