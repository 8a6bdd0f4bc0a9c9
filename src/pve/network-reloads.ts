/**
 * Whether a node's last network reload is known to have worked. PVE moves interfaces.new over
 * interfaces before ifreload runs, so a reload that failed (or whose outcome nobody saw) leaves
 * nothing staged, and a plan reading only staging would call the node settled. The memory is PVE's
 * own task list (`GET nodes/{node}/tasks`, the `srvreload` tasks of `networking`), not ours: it
 * survives a lost laptop and a killed handler, sees a reload made in the web UI, and turns an
 * outcome this process could not read (a cut poll) into the task's real one. Its limit: PVE lists
 * another token's tasks only to a token holding Sys.Audit on the node, so a token without it that
 * sees no reload is blind, never "fine". Source: [PM] PVE/API2/Tasks.pm node_tasks; [PC] UPID.pm.
 */
import { groupOf } from '../core/errors';
import { isTaskError, maskSecrets } from './task-follow';
import { isRecord } from '../core/records';

/**
 * The query for a node's reloads: running ones too (`source=all`), the newest 500. `srvreload` names every
 * service's reload, not only networking's (PVE filters by type, not by id), so with 20 a failed network reload
 * followed by 20 reloads of other services was listed no more and read as fine (an audit, 2026-12-05).
 */
export const RELOAD_TASKS_QUERY = { typefilter: 'srvreload', source: 'all', limit: 500 } as const;

/** The privilege that lists every token's tasks on a node. */
export const TASK_AUDIT = 'Sys.Audit';

/** What a node's task list says about its last reload. */
export type LastReload =
  /** It ended OK or with warnings; or none is on record and the token would have seen one. */
  | { readonly state: 'ok' }
  | { readonly state: 'failed'; readonly upid: string; readonly exitstatus: string; readonly endtime?: number }
  /** Listed as running (its end not yet archived): the outcome is not known. */
  | { readonly state: 'running'; readonly upid: string; readonly starttime: number }
  /** No reload listed, and the token (as messages name it) may see only its own tasks. */
  | { readonly state: 'blind'; readonly token?: string };

interface ReloadRow {
  readonly upid: string;
  /** starttime then pstart, from the UPID itself (an active row has no pstart field). */
  readonly order: readonly [number, number];
  readonly endtime?: number;
  readonly status?: string;
}

// UPID:<node>:<pid>:<pstart>:<starttime>:srvreload:networking:<user>:
const RELOAD_UPID = /^UPID:[^:]+:[0-9A-Fa-f]{8}:([0-9A-Fa-f]{8,9}):([0-9A-Fa-f]{8}):srvreload:networking:[^:]+:$/;

const rowOf = (row: unknown): ReloadRow | undefined => {
  if (!isRecord(row)) return undefined;
  const { upid, endtime, status } = row;
  const match = typeof upid === 'string' ? RELOAD_UPID.exec(upid) : null;
  if (!match || typeof upid !== 'string') return undefined;
  return {
    upid,
    order: [parseInt(groupOf(match, 2), 16), parseInt(groupOf(match, 1), 16)],
    ...(typeof endtime === 'number' ? { endtime } : {}),
    ...(typeof status === 'string' && status !== '' ? { status } : {}),
  };
};

const newer = (a: ReloadRow, b: ReloadRow): boolean =>
  a.order[0] !== b.order[0] ? a.order[0] > b.order[0] : a.order[1] > b.order[1];

/**
 * The last reload in a task list answer. The list is not in time order (running tasks come first,
 * and the index holds each archived batch newest first, read backwards), so the newest by start wins.
 * `auditsNode` says whether the token sees every token's tasks; it only matters when none is listed.
 */
export const lastReload = (rows: unknown, auditsNode: boolean): LastReload => {
  const reloads = (Array.isArray(rows) ? rows : []).flatMap((row) => rowOf(row) ?? []);
  if (reloads.length === 0) return auditsNode ? { state: 'ok' } : { state: 'blind' };
  const last = reloads.reduce((best, row) => (newer(row, best) ? row : best));
  if (last.status === undefined || last.status === 'RUNNING') {
    return { state: 'running', upid: last.upid, starttime: last.order[0] };
  }
  if (!isTaskError(last.status)) return { state: 'ok' };
  const failed = { state: 'failed', upid: last.upid, exitstatus: maskSecrets(last.status) } as const;
  return last.endtime === undefined ? failed : { ...failed, endtime: last.endtime };
};

/** Whether a plan reads the node as drift even with nothing staged: its last reload is not known good. */
export const needsReload = (last: LastReload): boolean => last.state !== 'ok';

/**
 * Whether an apply reloads a node with nothing staged: only a reload known failed or unfinished. A
 * blind token's node is left alone (a reload is an outage risk), and the log names the privilege.
 */
export const reloadsAgain = (last: LastReload): boolean => last.state === 'failed' || last.state === 'running';

/** Whether `GET /access/permissions?path=/nodes/<node>` grants Sys.Audit there (a key, even at 0). */
export const auditsNode = (answer: unknown, node: string): boolean => {
  const path = `/nodes/${node}`;
  const privileges = isRecord(answer) && Object.hasOwn(answer, path) ? answer[path] : undefined;
  return privileges !== null && typeof privileges === 'object' && Object.hasOwn(privileges, TASK_AUDIT);
};

/** "2026-12-04 18:40:00 UTC" */
const at = (seconds: number): string => `${new Date(seconds * 1000).toISOString().slice(0, 19).replace('T', ' ')} UTC`;

/**
 * What a plan (or an apply about to reload) says of a node's last reload, after "n3: ": "the last
 * network reload failed (task UPID:…, exit status …) at … UTC: the next apply reloads it".
 */
export const reloadWords = (node: string, last: LastReload, when: 'plan' | 'apply' = 'plan'): string => {
  const then = when === 'plan' ? 'the next apply reloads it' : 'reloading it again';
  switch (last.state) {
    case 'ok':
      return 'the last network reload succeeded';
    case 'failed': {
      const ended = last.endtime === undefined ? '' : ` at ${at(last.endtime)}`;
      return `the last network reload failed (task ${last.upid}, exit status ${last.exitstatus})${ended}: ${then}`;
    }
    case 'running':
      return (
        `the last network reload (task ${last.upid}, started ${at(last.starttime)}) has not ended, ` +
        `so its outcome is unknown: ${then}`
      );
    case 'blind':
      return (
        `cannot tell whether the last network reload succeeded: PVE lists another token's tasks only to a ` +
        `token holding ${TASK_AUDIT} on /nodes/${node}, and ${last.token ?? 'this token'} does not ` +
        (when === 'plan'
          ? '(PVEAuditor on / has it); grant it, then plan again'
          : '(PVEAuditor on / has it), so a failed reload there is not reloaded again until it does')
      );
  }
};

/** The plan's diff entry of a node whose last reload is not known good. */
export const reloadDiff = (last: LastReload): { live: string; want: string | number } =>
  last.state === 'blind'
    ? { live: 'unreadable', want: 0 }
    : { live: last.state === 'failed' ? 'last reload failed' : 'last reload outcome unknown', want: 'reloaded' };
