/**
 * How a rejected value reads in a message: a value JSON cannot render (a construct where a string
 * belongs is circular) is named by its class rather than failing with a TypeError of its own, and a
 * prop may show its values its own way (a url without its credential).
 */
import { Testing, TerraformStack } from 'cdktf';
import { runInNewContext } from 'node:vm';
import { errorCode, errorMessage, groupOf, show } from '../../../../src/core/errors';
import { broken } from '../../../../src/core/rules';

test.each<[unknown, string]>([
  ['x', '"x"'],
  [undefined, 'undefined'],
  [42, '42'],
  [{ a: [1] }, '{"a":[1]}'],
  [() => 1, 'function'],
  [new TerraformStack(Testing.app(), 'test'), 'a TerraformStack'],
])('show renders %p as %s', (value, shown) => expect(show(value)).toBe(shown));

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
