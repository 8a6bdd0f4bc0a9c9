// Unit test of a drop-in gone between a plan and its apply (unit-basis.ts `goneSince`): one the stack's destroy may
// have removed (its mark, drop-in-marks.ts) refuses nothing, any other refuses the unit and its drop-in, since the
// restart the plan named for another reason would take the unit live without it.
import { dropInBasis, dropInMoved, unitBasis, unitMoved } from '../../../../src/linux/unit-basis';
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

test.each([
  ['the stack', 's1', false],
  ['an earlier version (naming no stack)', undefined, false],
  ['another stack', 's2', true],
])('a drop-in marked by %s (%s) removed after the plan of stack s1 refuses its unit: %s', (_, stack, refused) => {
  const planned = unitBasis(spec, both([[W, stack]]), undefined, 's1');
  expect(unitMoved(spec, 'h:22', planned, live([[V, '1 8:1']])) !== undefined).toBe(refused);
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
