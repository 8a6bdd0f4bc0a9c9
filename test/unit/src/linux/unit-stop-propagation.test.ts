// Unit test of which declared units the destroys of removed units stop (unit-stop-propagation.ts): the units a
// running removed unit's stop takes with it, by systemd's reverse dependencies, down the chain; none for one that is
// not running.
import type { LiveUnit } from '../../../../src/linux/unit-control';
import { runningStatus } from '../../../support/unit-status';
import {
  afterStop,
  needsAfter,
  nextToShow,
  removalsThatAct,
  removedUnits,
  removedUnitsOf,
  startsAgain,
  stoppedByRemovals,
  stoppedWords,
  stopsWithCommand,
} from '../../../../src/linux/unit-stop-propagation';

test('the removed units are the tombstones of units and instances, by name, but no template or bad name', () => {
  const removing = [
    { kind: 'systemd-unit', identity: { name: 'a.service', directory: '/etc/systemd/system' } },
    { kind: 'systemd-unit', identity: { name: 'b@.service', directory: '/etc/systemd/system' } },
    { kind: 'systemd-unit', identity: { name: 'x.service\nId=y.service', directory: '/etc/systemd/system' } },
    { kind: 'systemd-instance', identity: { name: 'b@x.service', directory: '/etc/systemd/system' } },
    { kind: 'systemd-drop-in', identity: { unit: 'a.service', name: '10-v' } },
    { kind: 'network-interface', identity: { node: 'n1', iface: 'vmbr5' } },
  ];
  expect(removedUnits(removing)).toEqual(['a.service', 'b@x.service']);
  expect(removedUnits(undefined)).toEqual([]);
});

test('a removed unit is adopted only where its tombstone says adopt: true', () => {
  const identity = { name: 'a.service', directory: '/etc/systemd/system' };
  const removing = [
    { kind: 'systemd-unit', identity, adopt: true },
    { kind: 'systemd-instance', identity: { ...identity, name: 'b@x.service' } },
  ];
  expect(removedUnitsOf(removing)).toEqual([
    { name: 'a.service', adopt: true },
    { name: 'b@x.service', adopt: false },
  ]);
});

/** A removed unit as its marks read: a record naming `stack` (undefined: an earlier version's), or none. */
const marked = (record: boolean, stack?: string): LiveUnit => ({
  status: runningStatus(),
  fileSha256: undefined,
  restartOn: undefined,
  ...(record ? { restartOn: '0', ...(stack === undefined ? {} : { recordStack: stack }) } : {}),
});

// Regression: the declared units' plan said the destroy of a unit it leaves stops them (systemd-removal-left).
test.each([
  ['made by hand, not adopted', false, marked(false), false, 'green'],
  ['made by hand, adopted', true, marked(false), true, 'green'],
  ["this stack's", true, marked(true, 'green'), false, 'green'],
  ["an earlier version's, naming no stack", true, marked(true), false, 'green'],
  ["another stack's, adopted", false, marked(true, 'blue'), true, 'green'],
  ["another stack's, by a run naming no stack", false, marked(true, 'blue'), true, undefined],
])('the destroy of a removed unit %s acts: %s', (_, acts, live, adopt, stack) => {
  const marks = new Map([['a.service', live]]);
  expect(removalsThatAct([{ name: 'a.service', adopt }], marks, stack)).toEqual(acts ? ['a.service'] : []);
});

test('a removal the read of marks missed does not act', () => {
  expect(removalsThatAct([{ name: 'a.service', adopt: true }], new Map(), 'green')).toEqual([]);
});

test('the show of the removed units quotes each name', () => {
  expect(stopsWithCommand(["it's.service"])).toBe(
    'systemctl show -p Id,ActiveState,SubState,RequiredBy,RequisiteOf,BoundBy,ConsistsOf,PropagatesStopTo -- ' +
      "'it'\\''s.service'",
  );
});

test('a running removed unit stops the units bound to it, part of it or requiring it; a stopped one none', () => {
  const shown = [
    'Id=dep.service\nActiveState=active\nSubState=running\nRequiredBy=rq.service\nBoundBy=bt.service bt2.service',
    'ConsistsOf=po.service\nPropagatesStopTo=ps.service\nRequisiteOf=rs.service',
    '',
    'Id=idle.service\nActiveState=inactive\nSubState=dead\nBoundBy=other.service\nRequiredBy=',
  ].join('\n');
  const needing = ['rq.service', 'rs.service', 'bt.service', 'bt2.service'];
  expect([...stoppedByRemovals(shown, ['dep.service', 'idle.service'])]).toEqual([
    ...needing.map((unit) => [unit, { by: 'dep.service', needs: true }]),
    ...['po.service', 'ps.service'].map((unit) => [unit, { by: 'dep.service', needs: false }]),
  ]);
});

test('a unit stopped by two removals names the one it needs to start', () => {
  const shown = [
    'Id=a.service\nActiveState=active\nSubState=running\nConsistsOf=app.service',
    '',
    'Id=b.service\nActiveState=active\nSubState=running\nRequiredBy=app.service',
    '',
    'Id=c.service\nActiveState=active\nSubState=running\nBoundBy=app.service',
  ].join('\n');
  expect(stoppedByRemovals(shown, ['a.service', 'b.service', 'c.service']).get('app.service')).toEqual({
    by: 'b.service',
    needs: true,
  });
});

// Regression: only the removed unit's direct dependents were read, so a unit PartOf= one PartOf= it was refused.
test('a unit stopped with a unit a removal stops is stopped by that removal, and needs it only through a need', () => {
  const round1 =
    'Id=a.service\nActiveState=active\nSubState=running\nConsistsOf=b.service\nBoundBy=f.service x@.service';
  const first = stoppedByRemovals(round1, ['a.service']);
  expect(nextToShow(first, new Set(['a.service']))).toEqual(['f.service', 'b.service']);
  const round2 = [
    'Id=b.service\nActiveState=active\nSubState=running\nConsistsOf=c.service\nRequiredBy=d.service',
    '',
    'Id=f.service\nActiveState=active\nSubState=running\nRequiredBy=e.service\nConsistsOf=i.service',
  ].join('\n');
  const second = stoppedByRemovals(`${round1}\n\n${round2}`, ['a.service']);
  expect(Object.fromEntries(second)).toEqual({
    'b.service': { by: 'a.service', needs: false },
    'f.service': { by: 'a.service', needs: true },
    'x@.service': { by: 'a.service', needs: true },
    'c.service': { by: 'a.service', needs: false, with: 'b.service' },
    'd.service': { by: 'a.service', needs: false, with: 'b.service' },
    'e.service': { by: 'a.service', needs: true, with: 'f.service' },
    'i.service': { by: 'a.service', needs: false, with: 'f.service' },
  });
  const done = new Set(['a.service', 'b.service', 'f.service']);
  expect(nextToShow(second, done)).toEqual(['d.service', 'c.service', 'e.service', 'i.service']);
});

test('a unit a removal stops that is not running stops nothing more, and what it lists is kept as found', () => {
  const a = 'Id=a.service\nActiveState=active\nSubState=running\nConsistsOf=b.service';
  const idle = stoppedByRemovals(`${a}\n\nId=b.service\nActiveState=inactive\nSubState=dead\nConsistsOf=c.service`, [
    'a.service',
  ]);
  expect([...idle.keys()]).toEqual(['b.service']);
  const back = stoppedByRemovals(`${a}\n\nId=b.service\nActiveState=active\nSubState=running\nConsistsOf=b.service`, [
    'a.service',
  ]);
  expect(back.get('b.service')).toEqual({ by: 'a.service', needs: false });
});

// Regression: each round's blocks were judged once, in the order shown, so x, found first PartOf= the removed a and
// later needing it through b (x Requires= b, b Requires= a), left y (Requires= x) planned to start again: it fails.
test('a unit found to need the removed unit after its own stops were read passes that need on down the chain', () => {
  const round1 = 'Id=a.service\nActiveState=active\nSubState=running\nConsistsOf=x.service\nRequiredBy=b.service';
  const round2 = [
    'Id=x.service\nActiveState=active\nSubState=running\nRequiredBy=y.service',
    '',
    'Id=b.service\nActiveState=active\nSubState=running\nRequiredBy=x.service',
  ].join('\n');
  expect(Object.fromEntries(stoppedByRemovals(`${round1}\n\n${round2}`, ['a.service']))).toEqual({
    'b.service': { by: 'a.service', needs: true },
    'x.service': { by: 'a.service', needs: true, with: 'b.service' },
    'y.service': { by: 'a.service', needs: true, with: 'x.service' },
  });
});

test('a removed unit another removal stops still stops its own units as removed', () => {
  const shown = [
    'Id=a.service\nActiveState=active\nSubState=running\nConsistsOf=b.service',
    '',
    'Id=b.service\nActiveState=active\nSubState=running\nRequiredBy=c.service',
  ].join('\n');
  expect(stoppedByRemovals(shown, ['a.service', 'b.service']).get('c.service')).toEqual({
    by: 'b.service',
    needs: true,
  });
});

test('a unit a removal stops through another needs, after the apply, that other as its file names it', () => {
  const cause = { by: 'a.service', needs: true, with: 'f.service' };
  expect(needsAfter(cause, undefined)).toBe(true);
  expect(needsAfter(cause, '[Unit]\nRequires=f.service\n')).toBe(true);
  expect(needsAfter(cause, '[Unit]\nRequires=a.service\n')).toBe(false);
  expect(stoppedWords(cause, 'fails')).toBe(
    'the destroy of a.service, which this plan runs before the apply, stops it too (with f.service), and its start ' +
      'after fails (Unit a.service not found): it BindsTo=, Requires= or Requisite= f.service, which does not start ' +
      'without a.service; keep a.service in the stack, or drop that line',
  );
  expect(stoppedWords({ ...cause, needs: false }, 'starts')).toBe(
    'the destroy of a.service, which this plan runs before the apply, stops it too (with f.service)',
  );
});

test('a unit needs its removed unit after the apply as systemd reads it, or as the file the apply writes', () => {
  const cause = { by: 'dep.service', needs: true };
  expect(needsAfter(cause, undefined)).toBe(true);
  expect(needsAfter({ ...cause, needs: false }, undefined)).toBe(false);
  expect(needsAfter(cause, '[Unit]\nDescription=x\n[Service]\nExecStart=/bin/true\n')).toBe(false);
  expect(needsAfter(cause, '[Unit]\nBindsTo= other.service dep.service\n')).toBe(true);
  expect(needsAfter(cause, '[Unit]\nRequires=dep.service\n')).toBe(true);
  expect(needsAfter(cause, '[Unit]\nRequisite=dep.service\n')).toBe(true);
  expect(needsAfter(cause, '[Unit]\nWants=dep.service\nPartOf=dep.service\nRequires=dep.service.d\n')).toBe(false);
  // Regression: stopped by the removal through PartOf= alone, a unit whose rewrite adds Requires= of the removed unit
  // was planned to start again; the text the apply leaves decides, as systemd will read it.
  expect(needsAfter({ ...cause, needs: false }, '[Unit]\nRequires=dep.service\n')).toBe(true);
  // Through another unit: the need counts only where that unit cannot start without the removed one.
  const through = { by: 'dep.service', needs: false, with: 'mid.service' };
  const stopped = (needs: boolean) => new Map([['mid.service', { by: 'dep.service', needs }]]);
  expect(needsAfter(through, '[Unit]\nRequires=mid.service\n', stopped(true))).toBe(true);
  expect(needsAfter(through, '[Unit]\nRequires=mid.service\n', stopped(false))).toBe(false);
});

test('a declared-running unit in sync that a removal stops is planned to start again; no other', () => {
  const running = { declared: true, now: true, state: 'active/running' };
  const cause = { by: 'dep.service', needs: false };
  expect(startsAgain(cause, 'starts', running, {})).toEqual({
    running: { live: 'active/running, then stopped by the destroy of dep.service', want: 'running' },
  });
  expect(startsAgain(undefined, 'starts', running, {})).toEqual({});
  expect(startsAgain(cause, 'starts', { ...running, declared: false }, {})).toEqual({});
  expect(startsAgain(cause, 'starts', { ...running, now: false }, {})).toEqual({});
  const named = { running: { live: 'inactive/dead', want: 'running' } };
  expect(startsAgain(cause, 'starts', running, named)).toEqual({});
});

// Measured on systemd 252: a unit that BindsTo= or Requires= a unit whose file is gone fails to start with
// `Unit dep.service not found.`; one PartOf= it starts.
test('one that needs the removed unit is planned to fail its start, and the plan says why and what to do', () => {
  const running = { declared: true, now: true, state: 'active/running' };
  const cause = { by: 'dep.service', needs: true };
  expect(startsAgain(cause, 'fails', running, {})).toEqual({
    running: {
      live: 'active/running, then stopped by the destroy of dep.service',
      want: 'running, which fails: it does not start without dep.service',
    },
  });
  expect(stoppedWords(cause, 'fails')).toBe(
    'the destroy of dep.service, which this plan runs before the apply, stops it too, and its start after fails ' +
      '(Unit dep.service not found): it BindsTo=, Requires= or Requisite= it; keep dep.service in the stack, or drop ' +
      'that line',
  );
  expect(stoppedWords(cause, 'starts')).toBe(
    'the destroy of dep.service, which this plan runs before the apply, stops it too',
  );
});

// Measured on systemd 252 (test/contract/linux/systemd-needs-removed.test.ts): the start of a unit that Requires= a
// removed instance starts that instance again from its template, which stays.
test("a needing unit's start fails for a removed unit, revives a removed instance, and starts otherwise", () => {
  const running = { declared: true, now: true, state: 'active/running' };
  const unit = { by: 'dep.service', needs: true };
  const instance = { by: 'dep@a.service', needs: true };
  expect(afterStop(unit, undefined)).toBe('fails');
  expect(afterStop(instance, undefined)).toBe('revives');
  expect(afterStop({ ...instance, needs: false }, undefined)).toBe('starts');
  expect(afterStop(unit, '[Unit]\nDescription=dropped\n')).toBe('starts');
  expect(startsAgain(instance, 'revives', running, {})).toEqual({
    running: {
      live: 'active/running, then stopped by the destroy of dep@a.service',
      want: 'running, which starts dep@a.service again with it',
    },
  });
  expect(stoppedWords(instance, 'revives')).toBe(
    'the destroy of dep@a.service, which this plan runs before the apply, stops it too, and its start after starts ' +
      'dep@a.service again, whose template stays: it BindsTo=, Requires= or Requisite= it; drop that line, or keep ' +
      'dep@a.service in the stack',
  );
  expect(stoppedWords({ ...instance, with: 'mid.service' }, 'revives')).toContain(
    'it BindsTo=, Requires= or Requisite= mid.service, which needs dep@a.service;',
  );
});
