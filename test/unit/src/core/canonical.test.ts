import { canonicalJson, digestOf } from '../../../../src/core/canonical';

describe('canonicalJson', () => {
  test('sorts keys at every depth so key order never changes a digest', () => {
    const a = { b: 1, a: { d: [{ y: 1, x: 2 }], c: null } };
    const b = { a: { c: null, d: [{ x: 2, y: 1 }] }, b: 1 };
    expect(canonicalJson(a)).toBe('{"a":{"c":null,"d":[{"x":2,"y":1}]},"b":1}');
    expect(digestOf(a)).toBe(digestOf(b));
  });

  test('drops undefined members like JSON does, and keeps array order', () => {
    expect(canonicalJson({ a: undefined, b: [3, 1, 2] })).toBe('{"b":[3,1,2]}');
  });

  test('keeps a key named __proto__ as a key, so it changes the text and the digest', () => {
    const parsed: unknown = JSON.parse('{"b":2,"__proto__":{"a":1}}');
    expect(canonicalJson(parsed)).toBe('{"__proto__":{"a":1},"b":2}');
    expect(digestOf(parsed)).not.toBe(digestOf({ b: 2 }));
  });

  test('different values give different digests', () => {
    expect(digestOf({ port: 8089 })).not.toBe(digestOf({ port: 8090 }));
    expect(digestOf({ port: 8089 })).toMatch(/^[0-9a-f]{64}$/);
  });
});
