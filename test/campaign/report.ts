/**
 * The campaign's table (rounds, faults by type, converged on the first apply, on the second, never, plans that
 * lied) and, for each failing round, its replay command and what differed.
 */
import { describePlan, FAULT_TYPES } from './faults';
import type { RoundResult } from './round';

const percent = (part: number, whole: number) => (whole === 0 ? '-' : `${Math.round((100 * part) / whole)}%`);

const row = (cells: Array<string | number>, widths: number[]) =>
  cells
    .map((cell, i) => (i === 0 ? String(cell).padEnd(widths[i] ?? 0) : String(cell).padStart(widths[i] ?? 0)))
    .join('  ');

const tally = (results: RoundResult[]) => ({
  rounds: results.length,
  landed: results.filter((r) => r.landed).length,
  first: results.filter((r) => r.outcome === 'first').length,
  second: results.filter((r) => r.outcome === 'second').length,
  never: results.filter((r) => r.outcome === 'never').length,
  lied: results.filter((r) => r.lies.length > 0).length,
  orphaned: results.filter((r) => r.orphans.length > 0).length,
});

/** A round that needed a hand, or whose plan lied, or that left a handler running after terraform. */
export const failed = (result: RoundResult) => result.outcome === 'never' || result.lies.length > 0;

export const formatReport = (results: RoundResult[], seed: number): { text: string; ok: boolean } => {
  const total = tally(results);
  const widths = [22, 6, 6, 6, 6, 6, 6, 8];
  const header = ['fault', 'rounds', 'landed', '1st', '2nd', 'never', 'lied', 'orphans'];
  const line = (label: string, t: ReturnType<typeof tally>) =>
    row([label, t.rounds, t.landed, t.first, t.second, t.never, t.lied, t.orphaned], widths);
  const byType = FAULT_TYPES.map((type) => line(type, tally(results.filter((r) => r.plan.type === type))));
  const table = [
    `fault campaign, seed ${seed}: ${total.rounds} rounds, ${total.landed} faults landed mid-apply`,
    `converged on the first apply: ${total.first} (${percent(total.first, total.rounds)}), on the second: ` +
      `${total.second}, never: ${total.never}; plans clean while a target differed: ${total.lied}`,
    '',
    row(header, widths),
    ...byType,
    line('all', total),
  ];
  const failures = results
    .filter(failed)
    .map((r) =>
      [
        `round ${r.round} (variant ${r.variant}, ${describePlan(r.plan)}): ` +
          `${r.outcome === 'never' ? 'needed a hand' : `converged on the ${r.outcome} apply`}` +
          `${r.lies.length > 0 ? ', plan lied' : ''}; replay: npm run faults -- --seed ${seed} --only ${r.round}`,
        ...r.lies.map((lie) => `  lie ${lie}`),
        ...r.findings.map((finding) => `  ${finding.replace(/\n/g, '\n    ')}`),
        ...r.orphans.map((orphan) => `  orphan: ${orphan}`),
      ].join('\n'),
    );
  const orphans = results
    .filter((r) => !failed(r) && r.orphans.length > 0)
    .map((r) => {
      const plan = r.planBesideOrphans === undefined ? '' : `; a plan beside them exit ${r.planBesideOrphans}`;
      return `round ${r.round} (${describePlan(r.plan)}): ${r.orphans.join('; ')}${plan}`;
    });
  const text = [
    ...table,
    ...(failures.length > 0 ? ['', 'failing rounds:', ...failures] : []),
    ...(orphans.length > 0 ? ['', 'handlers that outlived terraform (converged rounds):', ...orphans] : []),
  ].join('\n');
  return { text, ok: total.never === 0 && total.lied === 0 };
};
