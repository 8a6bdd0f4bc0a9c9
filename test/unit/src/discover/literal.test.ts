// The writer's literals and names: a hostile server's value must come back as the same string and nothing else.
import { commentText, constructId, envVarName, quote, variableName } from '../../../../src/discover/literal';

/** Evaluates a literal as the generated file would: a hostile value that escaped it would throw or run. */
const evaluate = (literal: string): unknown => new Function(`"use strict"; return (${literal});`)();

describe('quote', () => {
  test.each([
    ['a quote and code', "x'); require('child_process').execSync('touch /tmp/pwned'); ('"],
    ['a backslash before the quote', "\\'; process.exit(1); '"],
    ['a template opening', '${process.exit(1)}`'],
    ['line separators', 'a\u2028b\u2029c\r\nd'],
    ['control characters', '\u0000\u0001\u001b[31mred\u007f\u0085'],
    ['bidi overrides', 'admin\u202e\u2066 // trojan'],
    ['a lone surrogate', 'x\ud800y\udc00'],
    ['astral characters', 'rocket \u{1f680} and CJK 漢字'],
    ['a comment opener', '*/ /* // <!--'],
  ])('returns %s as the same string', (_, text) => {
    const literal = quote(text);
    expect(evaluate(literal)).toBe(text);
    expect(literal).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
    expect(literal.slice(1, -1)).not.toMatch(/(^|[^\\])(\\\\)*'/);
  });

  test('keeps readable text readable', () => {
    expect(quote('ExecStart=/bin/sh -c "echo é"')).toBe('\'ExecStart=/bin/sh -c "echo é"\'');
  });
});

test('a comment keeps to one line of visible characters', () => {
  expect(commentText('a\nb\u2028c\u202ed\te */')).toBe('a?b?c?d?e */');
});

describe('names', () => {
  test('a variable name is an identifier, never reserved, never taken twice', () => {
    const taken = new Set(['stack']);
    expect(
      ['probe@.service', 'class', '9lives', 'stack', 'probe@.service', ''].map((hint) => variableName(hint, taken)),
    ).toEqual(['probeService', '_class', '_9lives', 'stack2', 'probeService2', 'object']);
  });

  test('a construct id holds only what Terraform names take, unique', () => {
    const taken = new Set<string>();
    expect(['vmbr0-n1', 'a b/c', '1x', 'a-b-c', "x'y", '...'].map((hint) => constructId(hint, taken))).toEqual([
      'vmbr0-n1',
      'a-b-c',
      '_1x',
      'a-b-c-2',
      'x-y',
      'object',
    ]);
  });

  // An audit (2026-12-05): a metric server named `constructor` made a stack whose first synth failed.
  test('a construct id is never a name every object answers to', () => {
    const taken = new Set<string>();
    expect(['constructor', 'toString', '__proto__', 'hasOwnProperty'].map((hint) => constructId(hint, taken))).toEqual([
      'constructor-2',
      'toString-2',
      '__proto__-2',
      'hasOwnProperty-2',
    ]);
  });

  test('an environment variable name is upper case and unique', () => {
    const taken = new Set<string>();
    expect(envVarName(['pve', 'metric', 'in-flux', 'token'], taken)).toBe('PVE_METRIC_IN_FLUX_TOKEN');
    expect(envVarName(['pve', 'metric', 'in_flux', 'token'], taken)).toBe('PVE_METRIC_IN_FLUX_TOKEN_2');
  });
});
