/**
 * Following a PVE task (a node's network reload) to its end, as a pure state machine over poll
 * outcomes and clock readings. The reload can cut the very connection its poll rides on, so a
 * failed poll is never a failed reload: with no reading before the budget ends, the outcome is
 * UNKNOWN (never OK, never failed), and the message names the node and the UPID to check.
 */
import { parseUpid, taskPath } from './upid';
import { isRecord } from '../core/records';

export interface FollowOptions {
  /** The node whose task this is; a UPID naming another node is refused. */
  readonly node: string;
  /** As the start call returned it. */
  readonly upid: string;
  /** Clock reading when the start call answered; the budget counts from here. */
  readonly startedAtMs: number;
  /** The ceiling (the `timeoutSeconds` prop × 1000). */
  readonly budgetMs: number;
  /** @default 1000 */
  readonly intervalMs?: number;
  /**
   * The most one poll may take. A reload can drop a connection without a reset, leaving the poll
   * hanging; a new one on a fresh connection may get through. @default 5000
   */
  readonly callTimeoutMs?: number;
}

/** What the shell learned since the last action: an answer's `data`, or a failed call. */
export type FollowEvent =
  | { readonly kind: 'status'; readonly data: unknown }
  /** `status` undefined: no HTTP answer at all (reset, refused, timed out). */
  | { readonly kind: 'poll-error'; readonly message: string; readonly status?: number }
  | { readonly kind: 'log'; readonly data: unknown }
  | { readonly kind: 'log-error'; readonly message: string };

export type FollowAction =
  /** GET `path` after `afterMs`, giving up on that one call after `timeoutMs`. */
  | { readonly kind: 'poll'; readonly path: string; readonly afterMs: number; readonly timeoutMs: number }
  | {
      readonly kind: 'fetch-log';
      readonly path: string;
      readonly query: { readonly start: number; readonly limit: number };
    }
  /** OK or `WARNINGS: n`; `warnings` holds the log's warning lines when there were any. */
  | {
      readonly kind: 'done';
      readonly message: string;
      readonly elapsedMs: number;
      readonly warnings?: readonly string[];
    }
  | {
      readonly kind: 'failed';
      readonly message: string;
      readonly exitstatus: string;
      readonly logTail: readonly string[];
    }
  | { readonly kind: 'unknown'; readonly message: string };

export interface FollowState {
  readonly options: Required<FollowOptions>;
  readonly deadlineMs: number;
  /** The last status reading, if any came back. */
  readonly lastReading?: 'running';
  readonly lastError?: string;
  /** Set once the task stopped, while its log is fetched. */
  readonly stopped?: { readonly exitstatus: string; readonly atMs: number };
}

export interface Step {
  readonly state: FollowState;
  readonly action: FollowAction;
}

/** How many log lines a failure carries. */
export const LOG_TAIL_LINES = 20;
const LOG_QUERY = { start: 0, limit: 1000 } as const;
const MAX_LINE = 300;

/** Starts following: the first poll goes out at once. A UPID PVE could not parse is unknown. */
export const startFollow = (options: FollowOptions): Step => {
  const full = { intervalMs: 1000, callTimeoutMs: 5000, ...options };
  const state: FollowState = { options: full, deadlineMs: full.startedAtMs + full.budgetMs };
  const parsed = parseUpid(full.upid);
  if (!parsed) return { state, action: unknown(state, 'the reload answered something that is not a task id') };
  if (parsed.node !== full.node) return { state, action: unknown(state, `the task id names node ${parsed.node}`) };
  return { state, action: poll(state, full.startedAtMs, 0) };
};

/** The next action after `event`, observed at clock reading `nowMs`. */
export const nextStep = (state: FollowState, event: FollowEvent, nowMs: number): Step => {
  if (event.kind === 'log' || event.kind === 'log-error') return finish(state, event, nowMs);
  if (event.kind === 'poll-error') {
    const next = { ...state, lastError: `${event.status === undefined ? '' : `${event.status} `}${event.message}` };
    if (!isRetryable(event.status))
      return { state: next, action: unknown(next, `the poll was refused (${next.lastError})`) };
    return { state: next, action: pollOrGiveUp(next, nowMs) };
  }
  const reading = readStatus(event.data, state.options.upid);
  if (reading === 'running') {
    const next: FollowState = { ...state, lastReading: 'running', lastError: undefined };
    return { state: next, action: pollOrGiveUp(next, nowMs) };
  }
  if (reading === undefined) {
    const next = { ...state, lastError: 'the status answer was not a status of this task' };
    return { state: next, action: pollOrGiveUp(next, nowMs) };
  }
  if (reading.exitstatus === undefined)
    return { state, action: unknown(state, 'the task stopped without an exit status') };
  const next: FollowState = { ...state, stopped: { exitstatus: reading.exitstatus, atMs: nowMs } };
  if (reading.exitstatus === 'OK') return finish(next, undefined, nowMs);
  return { state: next, action: { kind: 'fetch-log', path: taskPath(state.options.upid, 'log'), query: LOG_QUERY } };
};

/** A poll without an HTTP answer or with a 5xx (a member's forward failing is 59x) may succeed later. */
export const isRetryable = (status: number | undefined): boolean => status === undefined || status >= 500;

/** PVE's own rule (UPID.pm status_is_error): only `OK` and `WARNINGS: <n>` are not errors. */
export const isTaskError = (exitstatus: string): boolean =>
  !(exitstatus === 'OK' || /^WARNINGS: \d+$/.test(exitstatus));

const pollOrGiveUp = (state: FollowState, nowMs: number): FollowAction => {
  if (nowMs < state.deadlineMs) return poll(state, nowMs, Math.min(state.options.intervalMs, state.deadlineMs - nowMs));
  const seconds = formatSeconds(state.options.budgetMs);
  if (state.lastReading === 'running' && state.lastError === undefined) {
    return unknown(state, `still running after ${seconds}`);
  }
  const last = state.lastError === undefined ? '' : ` (last error: ${state.lastError})`;
  const seen = state.lastReading === 'running' ? 'running when last read, then no reading' : 'no status reading';
  return unknown(state, `${seen} in ${seconds}${last}`);
};

const poll = (state: FollowState, nowMs: number, afterMs: number): FollowAction => {
  const { callTimeoutMs, intervalMs } = state.options;
  // The call itself may hang (the reload cut its connection), so it ends with the budget; the
  // poll sent at the deadline still gets one interval, or "still running" could never be read.
  const left = Math.max(state.deadlineMs - nowMs - afterMs, Math.min(intervalMs, callTimeoutMs));
  const path = taskPath(state.options.upid, 'status');
  return { kind: 'poll', path, afterMs, timeoutMs: Math.min(callTimeoutMs, left) };
};

const unknown = (state: FollowState, why: string): FollowAction => ({
  kind: 'unknown',
  message: `outcome unknown: check the task on ${state.options.node} (${state.options.upid}): ${why}`,
});

const finish = (state: FollowState, event: FollowEvent | undefined, nowMs: number): Step => {
  const stopped = state.stopped ?? { exitstatus: 'OK', atMs: nowMs };
  const { node, upid, startedAtMs } = state.options;
  const lines = event?.kind === 'log' ? logLines(event.data) : [];
  const elapsedMs = stopped.atMs - startedAtMs;
  if (!isTaskError(stopped.exitstatus)) {
    const warned = lines.filter((line) => line.startsWith('WARN'));
    const warnings =
      stopped.exitstatus === 'OK' ? undefined : (warned.length > 0 ? warned : lines).slice(-LOG_TAIL_LINES);
    const message = `${node}: ${stopped.exitstatus} in ${formatSeconds(elapsedMs)}`;
    return { state, action: { kind: 'done', message, elapsedMs, ...(warnings ? { warnings } : {}) } };
  }
  const logTail = lines.slice(-LOG_TAIL_LINES);
  const unread = event?.kind === 'log-error' ? `; its log could not be read (${event.message})` : '';
  // The exit status is the text of the log's last line (`TASK ERROR: …`), so it is masked like one.
  const exitstatus = maskSecrets(stopped.exitstatus);
  const message = `reload failed on ${node}: ${exitstatus} (${upid})${unread}`;
  return { state, action: { kind: 'failed', message, exitstatus, logTail } };
};

/** `running`, `{exitstatus}` once stopped, or undefined when the answer is not about this task. */
const readStatus = (data: unknown, upid: string): 'running' | { exitstatus?: string } | undefined => {
  if (!isRecord(data)) return undefined;
  const { status, exitstatus, upid: answered } = data;
  if (answered !== undefined && answered !== upid) return undefined;
  if (status === 'running') return 'running';
  if (status !== 'stopped') return undefined;
  return typeof exitstatus === 'string' && exitstatus !== '' ? { exitstatus } : {};
};

/** The log's `[{n, t}]` rows in order, each line bounded and with secret-looking values masked. */
const logLines = (data: unknown): string[] => {
  if (!Array.isArray(data)) return [];
  const rows = data.filter(
    (row): row is { n: number; t: string } =>
      row !== null && typeof row === 'object' && typeof row.n === 'number' && typeof row.t === 'string',
  );
  return rows.sort((a, b) => a.n - b.n).map((row) => maskSecrets(row.t).slice(0, MAX_LINE));
};

// ifupdown2 may echo an option with its value; /etc/network/interfaces can hold wpa-psk lines. A
// passphrase may hold spaces and nothing marks where it ends, so everything to the end of the line goes.
const SECRET_OPTION = /\b(wpa-[a-z0-9-]+|password|passphrase|psk)([ \t]*[=:]?[ \t]*)\S[^\r\n]*/gi;

/** A log line or exit status with the values of secret-looking options replaced, to the end of the line. */
export const maskSecrets = (line: string): string => line.replace(SECRET_OPTION, '$1$2<redacted>');

/** "1.4 s" */
export const formatSeconds = (ms: number): string => `${(Math.max(ms, 0) / 1000).toFixed(1)} s`;
