/**
 * How a rejected value reads in a message: a value JSON cannot render (a construct where a string
 * belongs is circular) is named by its class rather than failing with a TypeError of its own, and a
 * prop may show its values its own way (a url without its credential).
 */
import { Testing, TerraformStack } from 'cdktf';
import { runInNewContext } from 'node:vm';
import { SshHost } from '../../../../constructs/linux/ssh-host';
import { SystemdUnit } from '../../../../constructs/linux/systemd-unit';
import { errorCode, errorMessage, groupOf, show } from '../../../../src/core/errors';
import { broken } from '../../../../src/core/rules';

test.each<[unknown, string]>([
  ['x', '"x"'],
  [undefined, 'undefined'],
  [42, '42'],
  [{ a: [1] }, '{"a":[1]}'],
  [() => 1, 'function'],
  // JSON renders these as null: `port: NaN` read `got null`.
  [NaN, 'NaN'],
  [-Infinity, '-Infinity'],
  [{ a: [1, Infinity] }, '{"a":[1,Infinity]}'],
  [{ a: 'NaN', b: NaN }, '{"a":"NaN","b":NaN}'],
  [new TerraformStack(Testing.app(), 'test'), 'a TerraformStack'],
])('show renders %p as %s', (value, shown) => expect(show(value)).toBe(shown));

// An audit (2026-12-05): a prop's escape sequences reached the terminal of whoever ran synth, acting there.
test.each<[unknown, string]>([
  ['\u001b]0;owned\u0007\u001b[2J', '"\\x1b]0;owned\\x07\\x1b[2J"'],
  ['two\nlines', '"two\\x0alines"'],
  [{ key: 'bidi \u202e x \u009b' }, '{"key":"bidi \\u202e x \\x9b"}'],
])('show renders %p with its control characters visible, as %s', (value, shown) => expect(show(value)).toBe(shown));

test('show cuts a long value', () => {
  expect(show('x'.repeat(10_000))).toMatch(/^"x{400,512}… \(cut\)"$/);
});

test("a prop's own rendering is held to the same rule", () => {
  expect(broken('url', 'a url', 'x', () => '"https://h/\u001b[8m"').says).toBe(
    'must be a url, got "https://h/\\x1b[8m"',
  );
});

test('a problem shows its value as the prop says, and never the value of an ...Env prop', () => {
  expect(broken('url', 'a url', 'https://t@h/x', () => '"<hidden>"').says).toBe('must be a url, got "<hidden>"');
  expect(broken('tokenEnv', 'a name', 'secret').says).toMatch(/got a value of 6 characters \(not shown/);
});

test('a caught value reads by its shape, so an error of another realm keeps its message and code', () => {
  const foreign: unknown = runInNewContext("Object.assign(new Error('no such file'), { code: 'ENOENT' })");
  expect(foreign instanceof Error).toBe(false);
  expect(errorMessage(foreign)).toBe('no such file');
  expect(errorCode(foreign)).toBe('ENOENT');
  expect(errorMessage('thrown text')).toBe('thrown text');
  expect(errorCode(new Error('x'))).toBeUndefined();
});

test('groupOf gives a group the match captured and fails on one that took no part', () => {
  const match = /^(a)(b)?$/.exec('a');
  if (match === null) throw new Error('the pattern must match');
  expect(groupOf(match, 1)).toBe('a');
  expect(() => groupOf(match, 2)).toThrow(/group 2 .* took no part/);
});

test('a synth that refuses a prop holding an escape sequence says so with the sequence made visible', () => {
  const stack = new TerraformStack(Testing.app(), 'test');
  const host = new SshHost(stack, 'h', { host: '127.0.0.1', hostKey: `SHA256:${'A'.repeat(43)}` });
  new SystemdUnit(stack, 'u', { host, name: 'a\u001b[2J.service', content: '[Service]\nExecStart=/bin/true\n' });
  expect(() => Testing.synth(stack)).toThrow(/test\/u: name must be .*, got "a\\x1b\[2J\.service"/);
});
