/**
 * The job systemd holds for one unit and the jobs it waits for, from `systemctl list-jobs`, so a
 * start that misses its deadline says what holds it, and a job left waiting with nothing ahead of
 * it can be told from one that waits its turn behind an `After=` unit. The helper's list-jobs step
 * (root-helper.ts) asks with both `--after` and `--before`: systemd 252 prints the jobs a job waits for
 * under `--before`, later versions under `--after`.
 */
export interface UnitJob {
  readonly id: string;
  /** start, stop, restart, reload, ... */
  readonly type: string;
  /** waiting (queued) or running. */
  readonly state: string;
  /** The jobs it waits for, as systemctl names them: `job 75 (db.service/start)`. */
  readonly waitingFor: readonly string[];
}

/** A job's own row in list-jobs output: id, unit, type, state. */
const JOB_ROW = /^\s*(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s*$/;

/** `systemd holds 2 jobs: 2091 x.service start waiting; 75 db.service start running`, at most `max` named. */
export const describeQueue = (stdout: string, max = 5): string => {
  const rows = stdout
    .split('\n')
    .map((line) => JOB_ROW.exec(line))
    .filter((row) => row !== null)
    .map((row) => row.slice(1).join(' '));
  const named = rows.slice(0, max).join('; ');
  const more = rows.length > max ? `; and ${rows.length - max} more` : '';
  return `systemd holds ${rows.length} job${rows.length === 1 ? '' : 's'}${rows.length > 0 ? `: ${named}${more}` : ''}`;
};

/** The job of `name` in list-jobs output, or undefined when it has none. */
export const parseUnitJob = (stdout: string, name: string): UnitJob | undefined => {
  let job: { id: string; type: string; state: string; waitingFor: string[] } | undefined;
  for (const line of stdout.split('\n')) {
    const row = JOB_ROW.exec(line);
    if (row !== null) {
      if (job !== undefined) break;
      const [, id = '', unit, type = '', state = ''] = row;
      if (unit === name) job = { id, type, state, waitingFor: [] };
      continue;
    }
    const waiting = /waiting for (job \d+ \(\S+\))/.exec(line);
    if (job !== undefined && waiting?.[1] !== undefined) job.waitingFor.push(waiting[1]);
  }
  return job;
};

/** A start, stop or restart systemd could run now yet leaves queued: its deadline message lists the whole queue. */
export const isStalled = (job: UnitJob): boolean =>
  job.state === 'waiting' && job.waitingFor.length === 0 && ['start', 'stop', 'restart'].includes(job.type);

/**
 * `its start job 124 is still waiting for job 75 (db.service/start)`, for a failure message; nothing
 * for a running job, whose unit state already says where it is.
 */
export const describeJob = (job: UnitJob): string | undefined =>
  job.state !== 'waiting'
    ? undefined
    : `its ${job.type} job ${job.id} is still waiting` +
      (job.waitingFor.length > 0 ? ` for ${job.waitingFor.join(', ')}` : ', for no other job');
