import { MAX_JSON_DEPTH, nestsDeeperThan, parseJson } from '../../../../../src/core/http/body';

const bytes = (text: string) => Buffer.from(text, 'utf8');
const arrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe('parseJson', () => {
  test('parses an answer nested as deep as the limit', () => {
    expect(parseJson(bytes(arrays(MAX_JSON_DEPTH)))).toMatchObject({ ok: true });
  });

  test('refuses one level deeper unparsed, saying why', () => {
    expect(parseJson(bytes(arrays(MAX_JSON_DEPTH + 1)))).toEqual({
      ok: false,
      reason: `nested deeper than ${MAX_JSON_DEPTH} levels`,
    });
  });

  test('refuses 8e6 levels in a few tens of milliseconds', () => {
    const body = bytes(arrays(8_000_000));
    const started = Date.now();
    expect(parseJson(body)).toMatchObject({ ok: false });
    expect(Date.now() - started).toBeLessThan(500);
  });

  test('says "not JSON" for a login page', () => {
    expect(parseJson(bytes('<html>login</html>'))).toEqual({ ok: false, reason: 'not JSON' });
  });
});

describe('nestsDeeperThan', () => {
  test.each([
    ['objects and arrays alike', '{"a":[{"b":[1]}]}', 3, true],
    ['brackets inside strings', '{"a":"[[[[{{{{"}', 1, false],
    ['an escaped quote that does not end the string', '["\\"[[[["]', 1, false],
    ['an escaped backslash that does end it', '["\\\\",[[1]]]', 2, true],
    ['a multi-byte character next to a bracket', '["é",["ü"]]', 2, false],
    ['siblings, which add no depth', '[[1],[2],[3],[4]]', 2, false],
  ])('counts %s', (_, text, max, deeper) => {
    expect(nestsDeeperThan(bytes(text), max)).toBe(deeper);
  });
});
