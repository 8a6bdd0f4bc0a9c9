/** The failover decisions as truth tables: when to move on, in which order, and how long each member may take. */
import { attemptLimits, mayMoveOn, memberOrder } from '../../../../../src/core/http/failover';

describe('failover decisions', () => {
  test.each([
    ['GET', 'unreached', true],
    ['GET', 'unanswered', true],
    ['POST', 'unreached', true],
    ['POST', 'unanswered', false],
    ['PUT', 'unanswered', false],
    ['DELETE', 'unanswered', false],
  ] as const)('a %s that failed %s may move on: %s', (method, failure, expected) => {
    expect(mayMoveOn(method, failure)).toBe(expected);
  });

  test('the last good member is tried first, the rest keep their declared order', () => {
    expect(memberOrder(['a', 'b', 'c'], undefined)).toEqual(['a', 'b', 'c']);
    expect(memberOrder(['a', 'b', 'c'], 'c')).toEqual(['c', 'a', 'b']);
    expect(memberOrder(['a', 'b'], 'gone')).toEqual(['a', 'b']);
  });

  test('a read shares what is left with the members still to try; the last one gets all of it', () => {
    expect(attemptLimits('GET', 30_000, 2, 100)).toEqual({ connectMs: 15_000, answerMs: 15_000, maxBodyBytes: 100 });
    expect(attemptLimits('GET', 15_000, 1, 100)).toEqual({ connectMs: 15_000, answerMs: 15_000, maxBodyBytes: 100 });
  });

  test('a write connects within its share but, once sent, keeps all that is left', () => {
    expect(attemptLimits('POST', 30_000, 3, 100)).toEqual({ connectMs: 10_000, answerMs: 30_000, maxBodyBytes: 100 });
  });
});
