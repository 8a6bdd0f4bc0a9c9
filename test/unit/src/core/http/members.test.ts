/** The member loop over scripted connections and a fake clock: no sockets, no real waits. */
import type { Connection, MembersOptions } from '../../../../../src/core/http/members';
import { Members } from '../../../../../src/core/http/members';
import type { Attempt, AttemptLimits, HttpRequest } from '../../../../../src/core/http/request';

const ANSWER: Attempt = { ok: true, answer: { status: 200, reason: 'OK', headers: {}, body: Buffer.from('{}') } };
const GET: HttpRequest = { method: 'GET', path: 'version', headers: {} };
const POST: HttpRequest = { method: 'POST', path: 'x', headers: {}, body: 'a=1' };

/** Members whose connections answer from a script and record what they were asked, on a fake clock. */
const scripted = (script: Record<string, Attempt>, options: Partial<MembersOptions> = {}) => {
  const asked: Array<[string, AttemptLimits]> = [];
  let clock = 0;
  const open = (endpoint: string): Connection => ({
    send: async (_request, limits) => {
      asked.push([endpoint, limits]);
      const attempt = script[endpoint] ?? ANSWER;
      if (!attempt.ok && attempt.failure === 'unanswered') clock += limits.answerMs;
      return attempt;
    },
    close: () => undefined,
  });
  const members = new Members(Object.keys(script), {
    timeoutMs: 30_000,
    tlsFor: () => ({}),
    open,
    now: () => clock,
    ...options,
  });
  return { members, asked };
};
const TIMED_OUT = { failure: 'unanswered', reason: 'no complete answer within 15 s' } as const;
const REFUSED = { failure: 'unreached', reason: 'connect ECONNREFUSED' } as const;
const timedOut: Attempt = { ok: false, ...TIMED_OUT };
const refused: Attempt = { ok: false, ...REFUSED };

describe('Members', () => {
  test('a read that timed out on one member moves on and the next member gets the time that is left', async () => {
    const { members, asked } = scripted({ a: timedOut, b: ANSWER });
    await expect(members.send(GET)).resolves.toMatchObject({ ok: true, endpoint: 'b' });
    expect(asked.map(([endpoint, limits]) => [endpoint, limits.answerMs])).toEqual([
      ['a', 15_000],
      ['b', 15_000],
    ]);
  });

  test('a deadline given with one call replaces the default for that call only', async () => {
    const { members, asked } = scripted({ a: timedOut, b: ANSWER });
    await members.send(GET, 5_000);
    await members.send(GET);
    expect(asked.map(([endpoint, limits]) => [endpoint, limits.answerMs])).toEqual([
      ['a', 2_500],
      ['b', 2_500],
      ['b', 15_000],
    ]);
  });

  test('a write that timed out once sent stops there, outcome unknown, and no other member is asked', async () => {
    const { members, asked } = scripted({ a: timedOut, b: ANSWER });
    await expect(members.send(POST)).resolves.toEqual({
      ok: false,
      failures: [],
      unknown: { endpoint: 'a', ...TIMED_OUT },
    });
    expect(asked.map(([endpoint]) => endpoint)).toEqual(['a']);
  });

  test('a write moves on past a member it never reached', async () => {
    const { members } = scripted({ a: refused, b: ANSWER });
    await expect(members.send(POST)).resolves.toMatchObject({ ok: true, endpoint: 'b' });
  });

  test('the member that answered is asked first next time and saved once', async () => {
    const saved: string[] = [];
    const { members, asked } = scripted(
      { a: refused, b: ANSWER },
      { memory: { load: () => undefined, save: (e) => saved.push(e) } },
    );
    await members.send(GET);
    await members.send(GET);
    expect(asked.map(([endpoint]) => endpoint)).toEqual(['a', 'b', 'b']);
    expect(saved).toEqual(['b']);
  });

  test('when every member fails, each is listed with its reason', async () => {
    const { members } = scripted({ a: refused, b: timedOut });
    await expect(members.send(GET)).resolves.toEqual({
      ok: false,
      failures: [
        { endpoint: 'a', ...REFUSED },
        { endpoint: 'b', ...TIMED_OUT },
      ],
    });
  });
});
