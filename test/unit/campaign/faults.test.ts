/**
 * The campaign's fault plans (test/campaign/faults.ts): every type once in each cycle of rounds, so the CI
 * campaign's one cycle covers the Ctrl-C too, and a Ctrl-C planned at an instant its round can reach.
 */
import { describePlan, FAULT_TYPES, planFault } from '../../campaign/faults';

const SEEDS = [26, 5401, 5402, 5403, 2026];

test.each(SEEDS)('the first cycle of rounds of seed %i holds every fault type once', (seed) => {
  const types = FAULT_TYPES.map((_, i) => planFault(seed, i + 1).type);
  expect([...types].sort()).toEqual([...FAULT_TYPES].sort());
});

test('a ctrl-c is anchored at a step of the apply, a destroy among them, and pressed again within 1.5 s or not', () => {
  const plans = SEEDS.flatMap((seed) => Array.from({ length: 220 }, (_, i) => planFault(seed, i + 1))).filter(
    (plan) => plan.type === 'ctrl-c',
  );
  expect(new Set(plans.map((plan) => plan.anchor))).toEqual(new Set(['start', 'linux', 'pve', 'kube', 'destroy']));
  const again = plans.flatMap((plan) => (plan.secondPressMs === undefined ? [] : [plan.secondPressMs]));
  expect(again.length).toBeGreaterThan(0);
  expect(again.length).toBeLessThan(plans.length);
  for (const ms of again) expect(ms).toBeLessThan(1_500);
  for (const plan of plans.filter((p) => p.anchor === 'destroy')) expect(plan.delayMs).toBeLessThan(300);
});

test('a ctrl-c reads as its instant and its second press', () => {
  expect(describePlan({ type: 'ctrl-c', anchor: 'destroy', delayMs: 40, secondPressMs: 800 })).toBe(
    'ctrl-c 40 ms after a destroy process start, again 800 ms later',
  );
  expect(describePlan({ type: 'ctrl-c', anchor: 'linux', delayMs: 900 })).toBe(
    'ctrl-c 900 ms after linux apply handler start',
  );
});
