// PVE worker tasks as the fake runs them: a UPID in PVE's format, a status that is `running` until
// the task's configured time is up, an exit status read from the last log line, the owner rule for
// who may poll, and polls whose connection the task cuts (a reload dropping its own poll).
// The node's task list serves them as PVE's index does: running ones from the active file, ended
// ones newest-archived first. Source: pve-api.md §A4; [PM] PVE/API2/Tasks.pm (node_tasks);
// [PC] PVE/UPID.pm (normalize_status_type), RESTEnvironment.pm active_workers, Tools.pm dump_logfile.
import { paramError, permError } from './envelope';
import { groupsOf } from './narrow';
import type { Value } from './validate';

export interface TaskBehaviour {
  /** How long the task runs; Infinity holds it until `finishTask`. @default 0 */
  readonly durationMs?: number;
  /** `OK`, `WARNINGS: <n>`, or an error text (the log then ends `TASK ERROR: <text>`). @default 'OK' */
  readonly exitstatus?: string;
  /** Lines the worker logs before its final `TASK …` line. @default [] */
  readonly log?: readonly string[];
  /** How many status or log polls of this task get their connection reset. @default 0 */
  readonly cutPolls?: number;
}

/** Where `GET nodes/{node}/tasks` looks: the index of ended tasks, the active file, or both. */
export const TASK_SOURCES = ['archive', 'active', 'all'] as const;

/** The filters of `GET nodes/{node}/tasks`, as Tasks.pm node_tasks takes them. */
export interface TaskListQuery {
  readonly start?: number;
  readonly limit?: number;
  readonly userfilter?: string;
  readonly typefilter?: string;
  readonly vmid?: number;
  readonly errors?: boolean;
  readonly source?: (typeof TASK_SOURCES)[number];
  readonly since?: number;
  readonly until?: number;
  readonly statusfilter?: string;
}

/** The list filters from the method's verified values, where integers and 0/1 booleans are numbers. */
export const taskListQuery = (values: Readonly<Record<string, Value>>): TaskListQuery => {
  const numberAt = (name: string) => (values[name] === undefined ? undefined : Number(values[name]));
  const textAt = (name: string) => (values[name] === undefined ? undefined : String(values[name]));
  return {
    start: numberAt('start'),
    limit: numberAt('limit'),
    userfilter: textAt('userfilter'),
    typefilter: textAt('typefilter'),
    vmid: numberAt('vmid'),
    errors: values.errors === undefined ? undefined : Number(values.errors) !== 0,
    source: TASK_SOURCES.find((source) => source === values.source),
    since: numberAt('since'),
    until: numberAt('until'),
    statusfilter: textAt('statusfilter'),
  };
};

/** Thrown by a route to reset the connection instead of answering. */
export class ConnectionCut extends Error {}

/** Who is polling: the token id, and whether it holds Sys.Audit on the task's node. */
export interface TaskCaller {
  readonly tokenId: string;
  readonly auditsNode: boolean;
}

interface Task {
  readonly upid: string;
  readonly node: string;
  readonly pid: number;
  readonly pstart: number;
  readonly starttime: number;
  readonly type: string;
  readonly id: string;
  readonly user: string;
  readonly startedMs: number;
  durationMs: number;
  exitstatus: string;
  readonly log: readonly string[];
  cutPolls: number;
}

// UPID.pm decode: node, pid, pstart (8-9 hex digits), starttime, type, id, user.
const [NODE, HEX, NAME] = ['[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?', '[0-9A-Fa-f]', '[^:\\s/]'];
const UPID = new RegExp(`^UPID:(${NODE}):(${HEX}{8}):(${HEX}{8,9}):(${HEX}{8}):(${NAME}+):(${NAME}*):(${NAME}+):$`);

/** The user that started the task a UPID names, or PVE's 400 when it does not parse. */
const ownerOf = (upid: string): string => {
  const [, , , , , , owner] = groupsOf(UPID, upid);
  if (owner === undefined) throw paramError({ upid: 'unable to parse worker upid' });
  return owner;
};

/** A task's `user` and `tokenid` fields: its owner split at the `!` of a token id. */
const userFields = (owner: string): { user: string; tokenid?: string } => {
  const [user = owner, tokenid] = owner.split('!');
  return tokenid === undefined ? { user } : { user, tokenid };
};

const hex8 = (value: number): string => value.toString(16).toUpperCase().padStart(8, '0');

const finalLine = (exitstatus: string): string =>
  exitstatus === 'OK'
    ? 'TASK OK'
    : /^WARNINGS: \d+$/.test(exitstatus)
      ? `TASK ${exitstatus}`
      : `TASK ERROR: ${exitstatus}`;

export class TaskStore {
  private readonly tasks = new Map<string, Task>();
  private nextPid = 0x1a2b3;

  constructor(private readonly now: () => number) {}

  /** fork_worker: the UPID names the node, the worker type and id, and the starting identity. */
  start(node: string, type: string, id: string, user: string, behaviour: TaskBehaviour = {}): string {
    const startedMs = this.now();
    const [pid, pstart, starttime] = [this.nextPid++, 0x2c0ffee + this.tasks.size, Math.floor(startedMs / 1000)];
    const upid = `UPID:${node}:${hex8(pid)}:${hex8(pstart)}:${hex8(starttime)}:${type}:${id}:${user}:`;
    const { durationMs = 0, exitstatus = 'OK', log = [], cutPolls = 0 } = behaviour;
    this.tasks.set(upid, {
      upid,
      node,
      pid,
      pstart,
      starttime,
      type,
      id,
      user,
      startedMs,
      durationMs,
      exitstatus,
      log,
      cutPolls,
    });
    return upid;
  }

  /** Ends a task now (a held one included), optionally with another exit status. */
  finish(upid: string, exitstatus?: string): void {
    const task = this.tasks.get(upid);
    if (!task) throw new Error(`fake PVE: no task ${upid}`);
    task.durationMs = this.now() - task.startedMs;
    if (exitstatus !== undefined) task.exitstatus = exitstatus;
  }

  /** The UPIDs started so far, oldest first. */
  list(): string[] {
    return [...this.tasks.keys()];
  }

  /** GET …/tasks/{upid}/status. The task file lives on its own node only. */
  status(node: string, upid: string, caller: TaskCaller): Record<string, unknown> {
    const owner = ownerOf(upid);
    const task = this.tasks.get(upid);
    if (!task || task.node !== node) throw paramError({ upid: 'no such task' });
    this.checkCaller(node, owner, caller);
    this.maybeCut(task);
    const running = this.isRunning(task);
    return {
      upid,
      node: task.node,
      pid: task.pid,
      pstart: task.pstart,
      starttime: task.starttime,
      type: task.type,
      id: task.id,
      ...userFields(task.user),
      status: running ? 'running' : 'stopped',
      ...(running ? {} : { exitstatus: task.exitstatus }),
    };
  }

  /** GET …/tasks/{upid}/log: `[{n, t}]` from `start`, `limit` lines (0 = to the end), and the total. */
  log(
    node: string,
    upid: string,
    caller: TaskCaller,
    start = 0,
    limit = 50,
  ): { lines: Array<{ n: number; t: string }>; total: number } {
    this.checkCaller(node, ownerOf(upid), caller);
    const task = this.tasks.get(upid);
    if (!task || task.node !== node)
      return { lines: [{ n: 1, t: 'unable to open file - No such file or directory' }], total: 1 };
    this.maybeCut(task);
    const all = this.isRunning(task) ? task.log : [...task.log, finalLine(task.exitstatus)];
    const slice = all.slice(start, limit === 0 ? undefined : start + limit);
    const lines = slice.map((t, index) => ({ n: start + index + 1, t }));
    // dump_logfile answers an empty log with one line, for the GUI's sake.
    return all.length === 0 ? { lines: [{ n: 1, t: 'no content' }], total: 1 } : { lines, total: all.length };
  }

  /**
   * GET nodes/{node}/tasks: the active file's running tasks first (status `RUNNING`, only for
   * source active or all), then the index read backwards (the task archived last first), each
   * filtered as node_tasks does: owner or Sys.Audit on the node, type, status class, time, offset.
   */
  index(
    node: string,
    caller: TaskCaller,
    query: TaskListQuery = {},
  ): { rows: Record<string, unknown>[]; total: number } {
    const { start = 0, source = 'archive' } = query;
    let limit = query.limit ?? 50;
    let count = 0;
    const classes = statusClasses(query);
    const keep = (task: Task, status: string | undefined): boolean => {
      const { user } = userFields(task.user);
      if (query.userfilter && !user.toLowerCase().includes(query.userfilter.toLowerCase())) return false;
      if (!caller.auditsNode && caller.tokenId !== task.user) return false;
      if (query.typefilter && task.type !== query.typefilter) return false;
      if (query.vmid !== undefined && task.id !== String(query.vmid)) return false;
      if (query.since !== undefined && task.starttime < query.since) return false;
      if (query.until !== undefined && task.starttime > query.until) return false;
      if (!classes.has(statusClass(status))) return false;
      if (count++ < start || limit <= 0) return false;
      limit -= 1;
      return true;
    };
    const mine = [...this.tasks.values()].filter((task) => task.node === node);
    const running = mine.filter((task) => this.isRunning(task)).sort((a, b) => b.startedMs - a.startedMs);
    const ended = mine
      .filter((task) => !this.isRunning(task))
      .sort((a, b) => b.startedMs + b.durationMs - (a.startedMs + a.durationMs));
    const rows = [
      ...(source === 'archive' ? [] : running.filter((task) => keep(task, undefined)).map((task) => this.row(task))),
      ...(source === 'active' ? [] : ended.filter((task) => keep(task, task.exitstatus)).map((task) => this.row(task))),
    ];
    return { rows, total: count };
  }

  private row(task: Task): Record<string, unknown> {
    const base = { upid: task.upid, node: task.node, pid: task.pid, starttime: task.starttime };
    const who = { type: task.type, id: task.id, ...userFields(task.user) };
    if (this.isRunning(task)) return { ...base, ...who, status: 'RUNNING' };
    const endtime = Math.floor((task.startedMs + task.durationMs) / 1000);
    return { ...base, pstart: task.pstart, ...who, endtime, status: task.exitstatus };
  }

  private isRunning(task: Task): boolean {
    return this.now() < task.startedMs + task.durationMs;
  }

  // $check_task_user: a token sees its own tasks; anyone else needs Sys.Audit on the node.
  private checkCaller(node: string, owner: string, caller: TaskCaller): void {
    if (caller.tokenId !== owner && !caller.auditsNode) throw permError(`/nodes/${node}`, 'Sys.Audit');
  }

  private maybeCut(task: Task): void {
    if (task.cutPolls <= 0) return;
    task.cutPolls -= 1;
    throw new ConnectionCut(`the reload on ${task.node} cut this poll`);
  }
}

/** UPID.pm normalize_status_type: no status is `unknown`, as is `unexpected status`. */
const statusClass = (status: string | undefined): string =>
  !status
    ? 'unknown'
    : status === 'OK'
      ? 'ok'
      : /^WARNINGS: \d+$/.test(status)
        ? 'warning'
        : status === 'unexpected status'
          ? 'unknown'
          : 'error';

/** Every class unless `statusfilter` names some (ignored with `errors`, which drops `ok`). */
const statusClasses = ({ statusfilter, errors }: TaskListQuery): Set<string> => {
  if (errors) return new Set(['warning', 'error', 'unknown']);
  if (statusfilter === undefined) return new Set(['ok', 'warning', 'error', 'unknown']);
  return new Set(
    statusfilter
      .split(/[,;\s]+/)
      .filter((part) => part !== '')
      .map((part) => part.toLowerCase()),
  );
};
