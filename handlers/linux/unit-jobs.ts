/**
 * The jobs of a host's batch apply: each unit's one start, stop or restart queued with the others of
 * its verb, then all waited for together, each under its own deadline. A unit that does not settle
 * fails every object its job was for; the others go on.
 */
import { HandlerError } from '../../src/core/errors';
import { planJobs, type PlannedJob } from '../../src/linux/unit-batch';
import { notQueued } from '../../src/linux/unit-commands';
import type { HostShell } from './host-shell';
import { active, say, type Track } from './unit-track';

const DONE = { stop: 'stopped', start: 'started', restart: 'restarted' } as const;

/**
 * Queues every unit's job, one `systemctl <verb> --no-block` per verb (systemd orders the jobs by
 * the units' own After=), then waits for them together, each under its own deadline.
 */
export const runJobs = async (shell: HostShell, tracks: readonly Track[]): Promise<void> => {
  const live = active(tracks);
  const byName = new Map(live.map((track) => [track.item.name, track]));
  const ownersOf = (job: PlannedJob) => job.owners.flatMap((name) => byName.get(name) ?? []);
  const jobs = planJobs(live.map((track) => ({ ...track, name: track.item.name, change: track.item.change })));
  const outcomes = new Map<string, Error | undefined>();
  for (const verb of ['stop', 'restart', 'start'] as const) {
    const group = jobs.filter((job) => job.verb === verb);
    if (group.length === 0) continue;
    const result = await shell.many(
      verb,
      group.map((job) => job.unit),
      '--no-block',
    );
    const refused = notQueued(verb, result.stderr);
    for (const job of group) {
      const line =
        refused.get(job.unit) ?? (result.code !== 0 && refused.size === 0 ? result.stderr.trim() : undefined);
      if (line !== undefined)
        outcomes.set(job.unit, new HandlerError(`systemctl ${verb} failed on ${shell.host}`, line));
      else if (verb !== 'stop') for (const owner of ownersOf(job)) owner.started = true;
    }
  }
  const waits = jobs.filter((job) => !outcomes.has(job.unit));
  const settled = await shell.settleAll(
    waits.map((job) => ({
      name: job.unit,
      want: job.want,
      seconds: job.seconds,
      log: ownersOf(job)[0]?.log ?? shell.log,
    })),
  );
  for (const job of jobs) {
    const error = outcomes.get(job.unit) ?? settled.get(job.unit);
    for (const owner of ownersOf(job)) {
      if (error !== undefined) owner.cause = error;
      else if (owner.item.change.sort === 'drop-in') say(owner, `restarted ${job.unit} with the new drop-in`);
      // A template's instance the stack does not declare (template-runs.ts): named, never said as the template's own.
      else if (owner.item.change.spec.name !== job.unit) say(owner, `restarted ${job.unit} with the new template`);
      else say(owner, job.verb === undefined ? 'became active' : DONE[job.verb]);
    }
  }
};
