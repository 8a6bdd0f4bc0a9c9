/**
 * One round of the campaign: the stack flipped to the other variant, that apply faulted, then what a user does
 * next (plan, apply, and apply again), each step checked against the targets themselves. A round converges on
 * the first or the second apply, or never (then a hand repairs the targets so the next round starts clean); a
 * plan that was clean while a target differed is a lie, whatever the apply did after it. Where handlers outlive
 * terraform, a plan started at once beside them is one more: clean, with a target differing once they end, it lied.
 * A `destroy-whole` round faults a `terraform destroy` of the variant the stand holds instead, checks the plan after
 * it against that variant, applies it back, then flips to the other variant, which must converge on one apply.
 */
import { describePlan, planFault, type FaultPlan } from './faults';
import { faultedApply } from './inject';
import { apply, leftovers, plan, synth, verify, type Stand } from './stand';
import { enableByHand } from './verify-host';
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

/**
 * The targets against `v`, then a plan; a clean plan with differences is a lie, but for files left on this machine,
 * which no plan can see (leftovers). `hand` false: the links of instances enabled by hand are not looked at.
 */
const check = async (stand: Stand, v: Variant, label: string, lies: string[], hand = true): Promise<Step> => {
  const diffs = await verify(stand, v, hand);
  const unseen = new Set(leftovers(stand));
  const planned = await plan(stand);
  const seen = diffs.filter((diff) => !unseen.has(diff));
  if (planned.code === 0 && seen.length > 0) lies.push(`${label}: the plan was clean while ${seen.join('; ')}`);
  return { diffs, planCode: planned.code };
};

const converged = (step: Step, applied: number) => applied === 0 && step.diffs.length === 0 && step.planCode === 0;

/**
 * Applies until the targets hold `v` and the plan is clean: on the first apply, the second, or never. `hand` as in
 * check.
 */
const converge = async (stand: Stand, v: Variant, lies: string[], found: string[], hand = true): Promise<Outcome> => {
  for (const [attempt, name] of [
    [1, 'first'],
    [2, 'second'],
  ] as const) {
    const applied = await apply(stand);
    const step = await check(stand, v, `after the ${name} apply`, lies, hand);
    if (converged(step, applied.code)) return name;
    found.push(
      `after the ${name} apply (exit ${applied.code}, plan exit ${step.planCode}): ` +
        `${step.diffs.join('; ') || 'the targets matched'}\n${clip(`${applied.stdout}\n${applied.stderr}`)}`,
    );
    if (attempt === 2) break;
  }
  return 'never';
};

/** Runs round `round` against a stand that holds its starting variant, converged. */
export const runRound = async (stand: Stand, seed: number, round: number, log: (line: string) => void) => {
  const started = Date.now();
  const v = variantOf(round);
  const fault = planFault(seed, round);
  // A destroy of the whole state is faulted on the variant the stand holds, brought back to it, then flipped to v.
  const faulted = fault.type === 'destroy-whole' ? startingVariant(round) : v;
  await synth(stand, faulted);
  const injected = await faultedApply(stand, fault);
  const lies: string[] = [];
  const findings: string[] = [];
  // A whole destroy removes the template, whose disable unlinks the instances enabled by hand too (README): they are
  // looked at again once the stand holds its variant and its user has enabled them again.
  const hand = fault.type !== 'destroy-whole';
  const after = await check(stand, faulted, 'after the fault', lies, hand);
  if (after.diffs.length > 0) findings.push(`after the fault: ${after.diffs.join('; ')}`);
  if (injected.planBesideOrphans === 0 && after.diffs.length > 0)
    lies.push(`a plan beside the handlers that outlived terraform was clean while ${after.diffs.join('; ')}`);
  let outcome = await converge(stand, faulted, lies, findings, hand);
  if (faulted !== v && outcome !== 'never') {
    await enableByHand(stand.targets.host);
    await synth(stand, v);
    if ((await converge(stand, v, lies, findings)) !== 'first') outcome = 'never';
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
