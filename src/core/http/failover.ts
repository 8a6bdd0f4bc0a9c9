/**
 * Which member to ask, when to move on, and how long each may take. A request that never reached
 * a server may go to the next member; a sent write never does (it may have landed); a sent GET
 * may, since reading twice is harmless. A read shares the call's deadline with the members left
 * to try, so one member that accepts and never answers cannot use up the whole timeout.
 */
import type { AttemptFailure, AttemptLimits } from './request';

/** Methods that may be sent twice: the second send changes nothing the first did not. */
export const isIdempotent = (method: string): boolean => method === 'GET' || method === 'HEAD';

/** Whether the next member may be tried after this failure. */
export const mayMoveOn = (method: string, failure: AttemptFailure): boolean =>
  failure === 'unreached' || isIdempotent(method);

/** Members to try: the last one that answered first, the rest in declared order. */
export const memberOrder = (endpoints: readonly string[], lastGood: string | undefined): string[] =>
  lastGood !== undefined && endpoints.includes(lastGood)
    ? [lastGood, ...endpoints.filter((e) => e !== lastGood)]
    : [...endpoints];

/**
 * The bounds of the next attempt, from what is left of the call's deadline. Connecting always
 * gets a fair share, since an unreached member may be skipped; once sent, a write keeps all that
 * is left (it cannot move on), and a read only its share.
 */
export const attemptLimits = (
  method: string,
  remainingMs: number,
  membersLeft: number,
  maxBodyBytes: number,
): AttemptLimits => {
  const share = Math.max(1, Math.floor(remainingMs / Math.max(1, membersLeft)));
  return { connectMs: share, answerMs: isIdempotent(method) ? share : Math.max(1, remainingMs), maxBodyBytes };
};
