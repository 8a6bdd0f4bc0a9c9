// Unit test of the fetch verdict as a truth table (seed 004's verdict()): only an entry computed for this ask or a
// later one answers it, a landing at or after the ask is fetched, an error of an attempt for it is stale with asOf.
import {
  askStamp,
  describeVerdict,
  type FetchVerdict,
  parseSandbox,
  type Sandbox,
  type SandboxRepoStatus,
  verdict,
} from '../../../../src/kube/fetch-verdict';

const ASKED = '2026-05-01T10:00:05Z';
const sandbox = (entry?: Partial<SandboxRepoStatus>): Sandbox => ({
  spec: { repos: [{ key: 'site' }] },
  status: { repos: entry === undefined ? [] : [{ key: 'site', ...entry }] },
});

describe('verdict', () => {
  test.each<[string, Partial<SandboxRepoStatus> | undefined, FetchVerdict | undefined]>([
    ['no entry for the key waits', undefined, undefined],
    [
      'an entry for an earlier ask waits, even with a later landing',
      { asked: '2026-05-01T10:00:04Z', fetched: '2026-05-01T10:00:09Z' },
      undefined,
    ],
    ['an entry with no asked stamp waits', { fetched: '2026-05-01T10:00:09Z' }, undefined],
    [
      'a landing at the ask second is fetched',
      { asked: ASKED, fetched: '2026-05-01T10:00:05.300Z' },
      { fetched: '2026-05-01T10:00:05.300Z' },
    ],
    [
      'a later ask shares the landing that answers it',
      { asked: '2026-05-01T10:00:07Z', fetched: '2026-05-01T10:00:08Z' },
      { fetched: '2026-05-01T10:00:08Z' },
    ],
    ['a landing before the ask, no error, waits', { asked: ASKED, fetched: '2026-05-01T10:00:01Z' }, undefined],
    [
      'an error of an attempt for this ask is stale as of the last landing',
      {
        asked: ASKED,
        attempted: '2026-05-01T10:00:06Z',
        error: 'fatal: could not read from remote repository',
        fetched: '2026-05-01T09:00:00Z',
      },
      { stale: 'fatal: could not read from remote repository', asOf: '2026-05-01T09:00:00Z' },
    ],
    [
      'an error with no landing ever is stale as of null',
      { asked: ASKED, error: 'fatal: repository not found' },
      { stale: 'fatal: repository not found', asOf: null },
    ],
    [
      'an error of an attempt made before the ask waits',
      { asked: ASKED, attempted: '2026-05-01T10:00:04Z', error: 'old words' },
      undefined,
    ],
    [
      'a landing for this ask wins over an error',
      { asked: ASKED, fetched: '2026-05-01T10:00:06Z', error: 'later words' },
      { fetched: '2026-05-01T10:00:06Z' },
    ],
    [
      'an unparseable landing with an error is stale',
      { asked: ASKED, fetched: 'soon', error: 'e' },
      { stale: 'e', asOf: 'soon' },
    ],
  ])('%s', (_, entry, want) => {
    expect(verdict(sandbox(entry), 'site', ASKED)).toEqual(want);
  });

  test('another key’s landing never answers the ask', () => {
    const other: Sandbox = { status: { repos: [{ key: 'docs', asked: ASKED, fetched: ASKED }] } };
    expect(verdict(other, 'site', ASKED)).toBeUndefined();
  });
});

test('an ask is stamped to the second, in RFC 3339', () => {
  expect(askStamp(Date.parse('2026-05-01T10:00:05.999Z'))).toBe(ASKED);
});

test('a stale verdict prints git’s words on one line and an unknown time for no landing', () => {
  expect(describeVerdict('site', { stale: 'fatal: no\n  route', asOf: null })).toBe(
    'repo "site" is stale as of an unknown time: fatal: no route',
  );
  expect(describeVerdict('site', { fetched: ASKED })).toBe(`repo "site" fetched at ${ASKED}`);
});

test('a Sandbox whose status the operator wrote wrong fails naming the field', () => {
  expect(() => parseSandbox({ status: { repos: [{ asked: ASKED }] } }, 'Sandbox jr2/a')).toThrow(
    /Sandbox jr2\/a unreadable: status\.repos\.0\.key/,
  );
});
