// Unit test of which drop-ins of a unit a destroy of the stack may remove (drop-in-marks.ts): those its mark or an
// apply's intent names, never another stack's, as the read's lines give them.
import { dropInMarksOf, marksByPath, removableBy } from '../../../../src/linux/drop-in-marks';

const V = '/etc/systemd/system/a.service.d/10-v.conf';
const W = '/etc/systemd/system/a.service.d/20 w.conf';

test('the read names each marked drop-in with the stack its intent, else its mark, names', () => {
  const text = [
    `m cdktf-homelab stack=s1\t${V}`,
    `i cdktf-homelab-intent since=1 sha256=- restart=no unit=a.service stack=s2\t${V}`,
    `m cdktf-homelab\t${W}`,
    'not a line of it',
  ].join('\n');
  expect(marksByPath(text)).toEqual(
    new Map([
      [V, 's2'],
      [W, undefined],
    ]),
  );
});

test('a unit keeps the marks of its own drop-ins alone, and none when none is marked', () => {
  const marks = new Map([[V, 's1']]);
  expect(dropInMarksOf([V, W], marks)).toEqual({ dropInMarks: new Map([[V, 's1']]) });
  expect(dropInMarksOf([W], marks)).toEqual({});
});

test.each([
  ['marked by the stack', new Map([[V, 's1']]), 's1', true],
  ["marked by an earlier version's apply (no stack named)", new Map([[V, undefined]]), 's1', true],
  ['marked by another stack', new Map([[V, 's2']]), 's1', false],
  ['marked by a stack, read by a run naming none', new Map([[V, 's1']]), undefined, false],
  ['not marked', new Map<string, string | undefined>(), 's1', false],
  ['on a unit with no mark read', undefined, 's1', false],
])('a drop-in %s is removable by the destroy: %s', (_what, marks, stack, removable) => {
  expect(removableBy(marks, V, stack)).toBe(removable);
});
