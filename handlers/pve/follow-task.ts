/**
 * The I/O shell of task-follow's state machine: it polls through the API port, waits on the clock
 * port (so a 30 s budget runs instantly in tests) and turns the machine's end into a progress line
 * or one error. A poll that fails never becomes a failed reload: the machine decides "unknown".
 */
import type { Clock } from '../../src/core/clock';
import { HandlerError } from '../../src/core/errors';
import type { Log } from '../../src/core/kind';
import { bounded } from '../../src/core/parse';
import type { PveApi } from '../../src/pve/api';
import { PveApiError } from '../../src/pve/client';
import { type FollowEvent, nextStep, startFollow } from '../../src/pve/task-follow';

export interface FollowRequest {
  readonly node: string;
  readonly upid: string;
  readonly budgetMs: number;
  /** Appended to a failure: which nodes the stopped chain leaves untouched. */
  readonly stop: string;
}

/** Follows one task to its end; resolves when it ended OK or with warnings, else throws. */
export const followTask = async (api: PveApi, request: FollowRequest, clock: Clock, log: Log): Promise<void> => {
  const { node, upid, budgetMs, stop } = request;
  let step = startFollow({ node, upid, startedAtMs: clock.now(), budgetMs });
  for (;;) {
    const action = step.action;
    switch (action.kind) {
      case 'poll': {
        await clock.sleep(action.afterMs);
        const event = await poll(api, action.path, action.timeoutMs);
        step = nextStep(step.state, event, clock.now());
        break;
      }
      case 'fetch-log': {
        const event = await api.call<unknown>('GET', action.path, action.query).then(
          (data): FollowEvent => ({ kind: 'log', data }),
          (error: unknown): FollowEvent => ({ kind: 'log-error', message: reason(error) }),
        );
        step = nextStep(step.state, event, clock.now());
        break;
      }
      case 'done':
        log(action.message);
        for (const line of action.warnings ?? []) log(`${node}: warning: ${line}`);
        return;
      case 'failed':
        for (const line of action.logTail) log(`${node}: task log: ${line}`);
        throw new HandlerError('Network reload failed', `${action.message}; its log ends above${stop}`);
      case 'unknown':
        throw new HandlerError('Network reload outcome unknown', `${action.message}${stop}`);
    }
  }
};

/** One status poll as the machine's event; `status` is set only when PVE itself answered. */
const poll = async (api: PveApi, path: string, timeoutMs: number): Promise<FollowEvent> => {
  try {
    return { kind: 'status', data: await api.call<unknown>('GET', path, undefined, { timeoutMs }) };
  } catch (error) {
    const status = error instanceof PveApiError ? error.status : undefined;
    return { kind: 'poll-error', message: reason(error), ...(status === undefined ? {} : { status }) };
  }
};

const reason = (error: unknown): string =>
  bounded(error instanceof PveApiError ? error.pveMessage : error instanceof Error ? error.message : String(error));
