/**
 * The order of a batch's jobs for Requisite=: the batch queues each verb's jobs in one `systemctl <verb> --no-block`,
 * one job after another, and a unit that Requisite= another fails at once unless that unit is active or its start is
 * already queued (measured, systemd 252: `test/contract/linux/systemd-stop-chain.test.ts`). Queued in the batch's
 * order, a unit declared before the unit it Requisite= failed while its plan said it starts; each unit now comes
 * after the units it Requisite= that the batch also has a job for. Pure, over any job that names its unit: the units'
 * texts are the declared ones.
 */

/** The units a unit's text (its file and drop-ins, in order) names in Requisite=; an empty one resets the list. */
export const requisitesOf = (text: string): string[] => {
  let named: string[] = [];
  for (const line of text.split('\n')) {
    const value = /^\s*Requisite\s*=(.*)$/.exec(line)?.[1];
    if (value === undefined) continue;
    const units = value.split(/\s+/).filter((unit) => unit !== '');
    named = units.length === 0 ? [] : [...named, ...units];
  }
  return named;
};

/**
 * `jobs` with each after the jobs of the units it Requisite= (`requisites` by unit), otherwise in their order. A
 * Requisite= loop keeps the order it met (systemd refuses one of them either way).
 */
export const requisitesFirst = <Job extends { readonly unit: string }>(
  jobs: readonly Job[],
  requisites: ReadonlyMap<string, readonly string[]>,
): Job[] => {
  const byUnit = new Map(jobs.map((job) => [job.unit, job]));
  const placed = new Set<string>();
  const ordered: Job[] = [];
  const place = (job: Job, path: ReadonlySet<string>) => {
    if (placed.has(job.unit) || path.has(job.unit)) return;
    const on = new Set(path).add(job.unit);
    for (const unit of requisites.get(job.unit) ?? []) {
      const first = byUnit.get(unit);
      if (first !== undefined) place(first, on);
    }
    if (placed.has(job.unit)) return;
    placed.add(job.unit);
    ordered.push(job);
  };
  for (const job of jobs) place(job, new Set());
  return ordered;
};
