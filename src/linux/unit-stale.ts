/**
 * Whether a unit's running process is older than its content, and how the read says so. A file
 * written and daemon-reloaded but never restarted leaves `NeedDaemonReload=no` and a matching file:
 * without this the plan was clean while the process ran the old content, whoever left it so.
 */
import type { FieldDiff } from '../core/protocol';
import type { LiveUnit } from './unit-control';
import { TEMPLATE_RUNS_FIELD } from './template-runs';

/**
 * Whether the process of a running unit started before its content last changed (`changedAt` when
 * known), or undefined when it did not or that cannot be told. Exact while the run the apply
 * recorded goes on (same InvocationID: compare the content); after another start, the files' ctime
 * against the process start, to the microsecond where the host shows it (unit-read.ts `showCommand`; in whole
 * seconds, a change in the second of the start counts as seen)
 * (records of earlier versions hold no content). Another start is judged by ctimes even when the
 * content is back to what was recorded: that start may have run other content (restarted by hand,
 * then the declared file put back and reloaded: the fault campaign's calibration, whose plan was
 * clean); a `touch` of an unchanged file costs one restart, never a lie.
 */
export const staleProcess = (live: LiveUnit): { changedAt?: number } | undefined => {
  const { content, startedWith, contentChangedAt } = live;
  const { invocation, startedAt } = live.status;
  if (content === undefined) return undefined;
  const at = contentChangedAt === undefined ? {} : { changedAt: contentChangedAt };
  if (startedWith !== undefined && invocation !== undefined) {
    if (startedWith.invocation === invocation) return startedWith.content === content ? undefined : at;
  }
  return startedAt !== undefined && contentChangedAt !== undefined && contentChangedAt > startedAt ? at : undefined;
};

/** Whether the apply must restart the unit, were it running: an interrupted apply said so, or it is stale. */
export const restartPending = (live: LiveUnit): boolean =>
  live.intent?.restart === true || staleProcess(live) !== undefined;

/** `2026-12-04T18:40:00Z`: whole seconds, so the plan's words do not move with the read's precision. */
export const isoTime = (seconds: number): string =>
  new Date(Math.floor(seconds) * 1000).toISOString().replace('.000Z', 'Z');

/**
 * Whether the read names a stale process. One that runs while systemd awaits a reload (`NeedDaemonReload=yes`) is
 * judged against the files the reload loads (drop-in-dirs.ts `pathsAfterReload`), as the apply judges it after its
 * reload: named as a reload alone, a drop-in removed by hand read as no restart while the apply restarted the unit.
 */
const namesStale = (live: LiveUnit, running: boolean): boolean => running && staleProcess(live) !== undefined;

/** The plan's words for a leftover intent or a stale process, first in the summary; undefined when neither. */
export const pendingWords = (live: LiveUnit, running: boolean): string | undefined => {
  const { intent } = live;
  if (intent !== undefined) {
    return intent.restart
      ? `restart pending since an interrupted apply (content changed at ${isoTime(intent.since)})`
      : `left half-applied by an interrupted apply (at ${isoTime(intent.since)})`;
  }
  const stale = namesStale(live, running) ? staleProcess(live) : undefined;
  if (stale === undefined) return undefined;
  const at = stale.changedAt === undefined ? '' : ` (at ${isoTime(stale.changedAt)})`;
  return `restart pending: its process started before its content changed${at}`;
};

/** The fields of the drift `pendingWords` names, for the diff. */
export const pendingDiff = (live: LiveUnit, running: boolean): FieldDiff => {
  const changes: Record<string, { live: unknown; want: unknown }> = {};
  if (live.intent !== undefined) {
    const restart = live.intent.restart ? '; restart pending' : '';
    changes.apply = { live: `interrupted at ${isoTime(live.intent.since)}${restart}`, want: 'finished' };
  } else if (namesStale(live, running)) {
    changes.process = { live: 'started before its content changed', want: 'restarted with it' };
  }
  return changes;
};

/**
 * The fields `pendingDiff` adds, and the restarts a template's file or drop-in makes pending for the instances the
 * stack does not declare (template-runs.ts): the summary names them in words instead.
 */
export const PENDING_FIELDS: readonly string[] = ['apply', 'process', TEMPLATE_RUNS_FIELD];
