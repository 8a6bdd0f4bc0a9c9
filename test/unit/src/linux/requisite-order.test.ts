// Unit test of the batch's job order for Requisite= (requisite-order.ts): a unit's start is queued after the starts of
// the units it Requisite=, since systemd fails it at once when it finds such a unit inactive with no start queued.
import { requisitesFirst, requisitesOf } from '../../../../src/linux/requisite-order';
import type { PlannedJob } from '../../../../src/linux/unit-batch';

const job = (unit: string): PlannedJob => ({ unit, verb: 'start', want: 'active', seconds: 90, owners: [unit] });
const units = (jobs: readonly PlannedJob[]) => jobs.map(({ unit }) => unit);

test('the units a text Requisite=, in order, across lines; an empty assignment resets them', () => {
  expect(requisitesOf('[Unit]\nRequisite=a.service b.service\nAfter=a.service\n Requisite = c.service\n')).toEqual([
    'a.service',
    'b.service',
    'c.service',
  ]);
  expect(requisitesOf('Requisite=a.service\nRequisite=\nRequisite=d.service')).toEqual(['d.service']);
  expect(requisitesOf('Requires=a.service\nRequisiteOf=b.service')).toEqual([]);
});

test('a job comes after the jobs of the units it Requisite=, down the chain; the others keep their order', () => {
  const jobs = ['q', 'x', 'o', 'n', 'y'].map((name) => job(`${name}.service`));
  const requisites = new Map([
    ['q.service', ['o.service', 'gone.service']],
    ['o.service', ['n.service']],
  ]);
  expect(units(requisitesFirst(jobs, requisites))).toEqual([
    'n.service',
    'o.service',
    'q.service',
    'x.service',
    'y.service',
  ]);
});

test('a Requisite= loop keeps every job, once, in the order met', () => {
  const jobs = ['a', 'b', 'c'].map((name) => job(`${name}.service`));
  const requisites = new Map([
    ['a.service', ['b.service']],
    ['b.service', ['a.service']],
  ]);
  expect(units(requisitesFirst(jobs, requisites))).toEqual(['b.service', 'a.service', 'c.service']);
});
