// Unit test of what a plan says of the running units no stack declares that a removed unit's destroy stops
// (src/linux/unit-removal-stops.ts). Regression: the plan said only "will be destroyed" of a unit whose destroy
// stopped a unit made by hand PartOf= or BindsTo= it.
import { removalStopWords, undeclaredStops } from '../../../../src/linux/unit-removal-stops';
import type { StopCause } from '../../../../src/linux/unit-stop-propagation';

const stoppedBy = new Map<string, StopCause>([
  ['z-ship.service', { by: 'app.service', needs: false }],
  ['bind.service', { by: 'app.service', needs: true }],
  ['tail.service', { by: 'app.service', needs: true, with: 'bind.service' }],
  ['ours.service', { by: 'app.service', needs: false }],
  ['other.service', { by: 'db.service', needs: true }],
]);
const place = 'unit app.service on h:22';

test('the stops of a removal are those its destroy causes that no stack declares, in name order', () => {
  const stops = undeclaredStops('app.service', stoppedBy, (name) => name !== 'ours.service');
  expect(stops.map(({ name }) => name)).toEqual(['bind.service', 'tail.service', 'z-ship.service']);
  expect(undeclaredStops('web.service', stoppedBy, () => true)).toEqual([]);
});

test.each<[string, string[], boolean, string | undefined]>([
  ['nothing stopped says nothing', [], true, undefined],
  [
    'one stopped that does not need it is named alone',
    ['z-ship.service'],
    true,
    `${place}, if this plan destroys it: its destroy stops z-ship.service too (running, and no stack declares it)`,
  ],
  [
    'units that need it are named as unable to start again, with the unit they are stopped through',
    ['bind.service', 'tail.service', 'z-ship.service'],
    true,
    `${place}, if this plan destroys it: its destroy stops bind.service, tail.service (with bind.service), ` +
      'z-ship.service too (running, and no stack declares them); bind.service, tail.service cannot start again ' +
      'without it (Unit app.service not found): each BindsTo=, Requires= or Requisite= it, or a unit that cannot ' +
      'start without it',
  ],
  [
    "an instance's file stays with its template: no start is said to fail",
    ['bind.service'],
    false,
    `${place}, if this plan destroys it: its destroy stops bind.service too (running, and no stack declares it)`,
  ],
])('removal words: %s', (_, names, ownsFile, said) => {
  const stops = undeclaredStops('app.service', stoppedBy, (name) => names.includes(name));
  expect(removalStopWords(place, 'app.service', stops, ownsFile)).toBe(said);
});
