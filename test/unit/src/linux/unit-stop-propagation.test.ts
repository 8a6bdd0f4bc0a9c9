// Unit test of which declared units the destroys of removed units stop (unit-stop-propagation.ts): the units a
// running removed unit's stop takes with it, by systemd's reverse dependencies; none for one that is not running.
import {
  removedUnits,
  startsAgain,
  stoppedByRemovals,
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
  expect([...stoppedByRemovals(shown)]).toEqual(
    ['rq.service', 'rs.service', 'bt.service', 'bt2.service', 'po.service', 'ps.service'].map((unit) => [
      unit,
      'dep.service',
    ]),
  );
});

test('a declared-running unit in sync that a removal stops is planned to start again; no other', () => {
  const running = { declared: true, now: true, state: 'active/running' };
  expect(startsAgain('dep.service', running, {})).toEqual({
    running: { live: 'active/running, then stopped by the destroy of dep.service', want: 'running' },
  });
  expect(startsAgain(undefined, running, {})).toEqual({});
  expect(startsAgain('dep.service', { ...running, declared: false }, {})).toEqual({});
  expect(startsAgain('dep.service', { ...running, now: false }, {})).toEqual({});
  const named = { running: { live: 'inactive/dead', want: 'running' } };
  expect(startsAgain('dep.service', running, named)).toEqual({});
});
