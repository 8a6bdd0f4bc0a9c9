import { boundedDiff, capped, MAX_TEXT_BYTES, MAX_VALUE_BYTES, printableLine } from '../../../../src/core/printable';

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

describe('printableLine', () => {
  test.each([
    ['ESC and BEL of a terminal title sequence', '\u001b]0;pwned\u0007done', '\\x1b]0;pwned\\x07done'],
    ['a colour sequence', 'a \u001b[31mred\u001b[0m b', 'a \\x1b[31mred\\x1b[0m b'],
    ['an 8-bit CSI', 'x\u009b2Jy', 'x\\x9b2Jy'],
    ['DEL and NUL', 'a\u007fb\u0000c', 'a\\x7fb\\x00c'],
    ['a bidi override', 'user\u202egnp.exe', 'user\\u202egnp.exe'],
    ['a line separator', 'a\u2028b', 'a\\u2028b'],
    ['line breaks with their indentation', 'first\r\n   second\nthird', 'first second third'],
    ['a tab', 'a\tb', 'a b'],
  ])('shows %s visibly, on one line', (_, raw, shown) => {
    expect(printableLine(raw)).toBe(shown);
  });

  test('leaves printable text, accents and emoji as they are', () => {
    expect(printableLine('port is 8089, want "8090"; café ✓ 🙂')).toBe('port is 8089, want "8090"; café ✓ 🙂');
  });

  test('cuts a 2 MiB server string to the cap, marked "(cut)", in a few milliseconds', () => {
    const url = 'https://example.test/' + 'a'.repeat(2 * 1024 * 1024);
    const started = Date.now();
    const line = printableLine(url);
    expect(Date.now() - started).toBeLessThan(200);
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(MAX_TEXT_BYTES);
    expect(line).toMatch(/^https:\/\/example\.test\/a+… \(cut\)$/);
  });

  test('an escape that crosses the cap is cut, never left as a raw control character', () => {
    const line = printableLine('a'.repeat(MAX_TEXT_BYTES - 3) + '\u001b'.repeat(50));
    expect(line).not.toMatch(CONTROL);
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(MAX_TEXT_BYTES);
  });
});

describe('capped', () => {
  test('never cuts inside a multi-byte character', () => {
    const text = 'é'.repeat(100);
    const cut = capped(text, 51);
    expect(cut).toBe(`${'é'.repeat(21)}… (cut)`);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(51);
  });

  test('keeps text at the cap whole', () => {
    expect(capped('abc', 3)).toBe('abc');
  });
});

describe('boundedDiff', () => {
  test('keeps a small diff as it is', () => {
    const diff = { port: { live: 8089, want: 8090 }, bucket: { live: null, want: 'pve' } };
    expect(boundedDiff(diff)).toEqual(diff);
  });

  test('two 2 MiB URLs become a diff of at most 2 KiB that still names the field', () => {
    const huge = (c: string) => `https://git.example/${c.repeat(2 * 1024 * 1024)}`;
    const diff = boundedDiff({ url: { live: huge('a'), want: huge('b') } });
    expect(Buffer.byteLength(JSON.stringify(diff))).toBeLessThanOrEqual(MAX_TEXT_BYTES);
    expect(diff.url?.live).toMatch(/^https:\/\/git\.example\/a+… \(cut\)$/);
    expect(Buffer.byteLength(String(diff.url?.live))).toBeLessThanOrEqual(MAX_VALUE_BYTES);
  });

  test('a field that cannot fit beside the others keeps its name with both sides "(cut)"', () => {
    const long = (c: string) => c.repeat(MAX_VALUE_BYTES);
    const diff = boundedDiff({
      a: { live: long('a'), want: long('b') },
      b: { live: long('c'), want: long('d') },
    });
    expect(diff.b).toEqual({ live: '(cut)', want: '(cut)' });
    expect(Buffer.byteLength(JSON.stringify(diff))).toBeLessThanOrEqual(MAX_TEXT_BYTES);
  });

  test('control characters inside nested live values are escaped', () => {
    const diff = boundedDiff({ labels: { live: { 'te\u001bam': ['we\u0007b'] }, want: null } });
    expect(diff).toEqual({ labels: { live: { 'te\\x1bam': ['we\\x07b'] }, want: null } });
  });
});
