// Unit test of a drop-in gone between a plan and its apply (unit-basis-gone.ts): one the stack's destroy removed (its
// mark, drop-in-marks.ts, and the trace that destroy left, drop-in-traces.ts) refuses nothing, any other refuses the
// unit and its drop-in, since the restart the plan named for another reason would take the unit live without it.
import { dropInBasis, dropInMoved, tracesUsedBy, unitBasis, unitMoved } from '../../../../src/linux/unit-basis';
import type { DropInSpec } from '../../../../src/linux/systemd-drop-in';
import type { LiveUnit } from '../../../../src/linux/unit-control';
import { live as liveUnit, spec } from './unit-fixtures';

const dropIn = { unit: 'check.service', name: '10-v', directory: '/etc/systemd/system' } as DropInSpec;
const V = '/etc/systemd/system/check.service.d/10-v.conf';
const W = '/etc/systemd/system/check.service.d/50-hand.conf';
/** The unit with its drop-ins on disk as `stamps`, and the stack each of `marks` names. */
const live = (stamps: Array<[string, string]>, marks: Array<[string, string | undefined]> = []): LiveUnit =>
  liveUnit(
    { dropInPaths: stamps.map(([path]) => path) },
    { dropInStamps: stamps, ...(marks.length === 0 ? {} : { dropInMarks: new Map(marks) }) },
  );
const both = (marks: Array<[string, string | undefined]> = []) =>
  live(
    [
      [V, '1 8:1'],
      [W, '2 8:2'],
    ],
    marks,
  );

test.each([
  ['removed and reloaded', live([[V, '1 8:1']])],
  [
    'removed, systemd still listing it',
    live([
      [V, '1 8:1'],
      [W, '?'],
    ]),
  ],
])('a drop-in no destroy of the stack may remove, %s after the plan, refuses the unit and its drop-in', (_, now) => {
  expect(unitMoved(spec, 'h:22', unitBasis(spec, both(), undefined, 's1'), now)?.message).toBe(
    'check.service on h:22 cannot be applied as planned: its drop-ins changed after the plan read it (1 drop-in it ' +
      'had then was removed), so this apply would take that live (restart, start or reload it with them), which the ' +
      'plan did not say; nothing was written, started, stopped or restarted for it: plan again, and that plan reads ' +
      'it as it is now',
  );
  expect(dropInMoved(dropIn, 'h:22', dropInBasis(dropIn, both(), undefined, 's1'), now)?.message).toMatch(
    new RegExp(
      "^drop-in \\S+10-v\\.conf on h:22 cannot be applied as planned: its unit's other drop-ins changed after " +
        'the plan read them \\(1 drop-in it had then was removed\\)',
    ),
  );
});

/** What the batch apply reads of the host's traces (drop-in-traces.ts): each path a destroy removed, by its stamp. */
const traced = (stamps: Array<[string, string]>, markedGone: string[] = []): Partial<LiveUnit> => ({
  dropInRemovals: { traced: new Map(stamps), markedGone },
});
const after = (removals: Partial<LiveUnit>) => ({ ...live([[V, '1 8:1']]), ...removals });

test.each([
  ['the stack', 's1', 'a destroy of the apply', false],
  ['the stack', 's1', 'a hand', true],
  ['an earlier version (naming no stack)', undefined, 'a destroy of the apply', false],
  ['an earlier version (naming no stack)', undefined, 'a hand', true],
  ['another stack', 's2', 'a destroy of the apply', true],
  ['another stack', 's2', 'a hand', true],
])('a drop-in marked by %s (%s), removed by %s after the plan of stack s1, refuses its unit: %s', (...row) => {
  const [, stack, by, refused] = row;
  const planned = unitBasis(spec, both([[W, stack]]), undefined, 's1');
  const now = after(by === 'a hand' ? {} : traced([[W, '2 8:2']]));
  expect(unitMoved(spec, 'h:22', planned, now) !== undefined).toBe(refused);
});

// Regression: a drop-in of the stack's removed by hand after the plan was taken for one its destroy removed.
test("a drop-in of the stack's removed by hand is named by its mark left behind, by its unit", () => {
  const planned = unitBasis(spec, both([[W, 's1']]), undefined, 's1');
  const now = after(traced([], [W, '/etc/systemd/system/other.service.d/10-v.conf']));
  expect(unitMoved(spec, 'h:22', planned, now)?.message).toBe(
    `check.service on h:22 cannot be applied as planned: its drop-ins changed after the plan read it (${W}, the ` +
      "stack's, was removed, not by a destroy of this apply), so this apply would take that live (restart, start or " +
      'reload it with them), which the plan did not say; nothing was written, started, stopped or restarted for ' +
      'it: plan again, and that plan reads it as it is now',
  );
  const dropInPlanned = dropInBasis(dropIn, both([[W, 's1']]), undefined, 's1');
  expect(dropInMoved(dropIn, 'h:22', dropInPlanned, after(traced([])))?.message).toContain(
    "(1 drop-in of the stack's was removed, not by a destroy of this apply)",
  );
});

test('a trace of another file at that path (removed before the plan read this one) accounts for nothing', () => {
  const planned = unitBasis(spec, both([[W, 's1']]), undefined, 's1');
  expect(unitMoved(spec, 'h:22', planned, after(traced([[W, '1 8:2']])))).toBeDefined();
  expect(unitMoved(spec, 'h:22', planned, after(traced([[V, '1 8:1']])))).toBeDefined();
});

test("a trace accounts for a drop-in the plan's login could not stat, and is used only for one gone", () => {
  const planned = unitBasis(spec, live([[W, '?']], [[W, 's1']]), undefined, 's1');
  expect(unitMoved(spec, 'h:22', planned, { ...live([]), ...traced([[W, '2 8:2']]) })).toBeUndefined();
  expect(tracesUsedBy(planned, { ...live([]), ...traced([[W, '2 8:2']]) })).toEqual([W]);
  const there = unitBasis(spec, both([[W, 's1']]), undefined, 's1');
  expect(tracesUsedBy(there, { ...both(), ...traced([[W, '2 8:2']]) })).toEqual([]);
});

test("a drop-in the plan's login could not stat, and the apply's cannot either, is taken as still there", () => {
  const planned = unitBasis(spec, live([[W, '?']]), undefined, 's1');
  expect(unitMoved(spec, 'h:22', planned, live([[W, '?']]))).toBeUndefined();
  expect(unitMoved(spec, 'h:22', planned, live([]))).toBeDefined();
});

test('a plan that read drop-ins but no stays (the version before) refuses none gone', () => {
  const planned = unitBasis(spec, both(), undefined, 's1').replace(/ stays .*$/, '');
  expect(unitMoved(spec, 'h:22', planned, live([]))).toBeUndefined();
});
