// Unit test of a Requisite= that a removal strands (requisite-stranded.ts): a unit stopped with the removed one whose
// text Requisite= a unit that removal stops and nothing starts again is planned to fail its start, and says why.
import { declaredText, startedByBatch, withStrandedRequisite } from '../../../../src/linux/requisite-stranded';
import type { UnitChange } from '../../../../src/linux/unit-batch';
import { afterStop, startsAgain, type StopCause, stoppedWords } from '../../../../src/linux/unit-stop-propagation';
import { sleeperEntry } from '../../../support/unit-host';

const unit = (name: string, lines: string, started = true): UnitChange => ({
  sort: 'unit',
  spec: { ...sleeperEntry(name, lines).spec, started },
});
const cause = { by: 'k.service', needs: false, with: 'm.service' };
const stopped = new Map<string, StopCause>([
  ['m.service', { by: 'k.service', needs: false }],
  ['n.service', cause],
]);

test('the batch starts the units it declares running; a unit reads as its file and its drop-ins in the batch', () => {
  const batch: UnitChange[] = [
    unit('a.service', ''),
    unit('b.service', '', false),
    { sort: 'drop-in', spec: { unit: 'n.service', name: '10-r', content: 'Requisite=m.service\n' } } as UnitChange,
  ];
  expect([...startedByBatch(batch)]).toEqual(['a.service']);
  expect(declaredText('n.service', '[Unit]\n', batch)).toBe('[Unit]\n\nRequisite=m.service\n');
});

test('a Requisite= on a unit the removal stops strands the start unless the batch starts that unit', () => {
  const text = '[Unit]\nRequisite=m.service\n';
  const stranded = withStrandedRequisite(cause, text, stopped, new Set());
  expect(stranded).toEqual({ ...cause, requisite: 'm.service' });
  expect(afterStop(stranded, undefined)).toBe('stranded');
  expect(withStrandedRequisite(cause, text, stopped, new Set(['m.service']))).toBe(cause);
  expect(withStrandedRequisite(cause, 'Requires=m.service\n', stopped, new Set())).toBe(cause);
  expect(withStrandedRequisite(cause, 'Requisite=other.service\n', stopped, new Set())).toBe(cause);
  // A need of the removed unit itself says more: its start fails whatever starts.
  expect(afterStop({ ...stranded, needs: true, with: undefined }, undefined)).toBe('fails');
});

test('the plan says a stranded start fails, why, and what to do', () => {
  const stranded = { ...cause, requisite: 'm.service' };
  const running = { declared: true, now: true, state: 'active/running' };
  expect(startsAgain(stranded, 'stranded', running, {})).toEqual({
    running: {
      live: 'active/running, then stopped by the destroy of k.service',
      want: 'running, which fails: it Requisite= m.service, which nothing starts after the destroy of k.service',
    },
  });
  expect(stoppedWords(stranded, 'stranded')).toBe(
    'the destroy of k.service, which this plan runs before the apply, stops it too (with m.service), and its start ' +
      'after fails: it Requisite= m.service, which that destroy stops and nothing starts again; declare m.service ' +
      'running in the stack, or drop that line',
  );
});
