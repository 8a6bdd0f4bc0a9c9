import { classifyFailure, mayFailOver, memberOrder } from '../../../../src/pve/failover';

const fetchFailed = (code: string) => Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error(code), { code }) });

describe('failover decisions', () => {
  test.each([
    ['ECONNREFUSED', 'unreached'],
    ['ENOTFOUND', 'unreached'],
    ['EAI_AGAIN', 'unreached'],
    ['EHOSTUNREACH', 'unreached'],
    ['UND_ERR_CONNECT_TIMEOUT', 'unreached'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'unreached'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'unreached'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unreached'],
    ['HOMELAB_PIN_MISMATCH', 'unreached'],
    ['UND_ERR_HEADERS_TIMEOUT', 'sent'],
    ['UND_ERR_BODY_TIMEOUT', 'sent'],
    ['ECONNRESET', 'sent'],
    ['UND_ERR_SOCKET', 'sent'],
  ])('a request failing with %s counts as %s', (code, expected) => {
    expect(classifyFailure(fetchFailed(code))).toBe(expected);
  });

  test('an error without a code counts as sent, so a write is never repeated on a guess', () => {
    expect(classifyFailure(new Error('mystery'))).toBe('sent');
  });

  test('only a request that never reached a server may go to the next member', () => {
    expect(mayFailOver('unreached')).toBe(true);
    expect(mayFailOver('sent')).toBe(false);
  });

  test('the last good member is tried first, the rest keep their declared order', () => {
    expect(memberOrder(['a', 'b', 'c'], undefined)).toEqual(['a', 'b', 'c']);
    expect(memberOrder(['a', 'b', 'c'], 'c')).toEqual(['c', 'a', 'b']);
    expect(memberOrder(['a', 'b'], 'gone')).toEqual(['a', 'b']);
  });
});
