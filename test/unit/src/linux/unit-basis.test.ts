// Unit test of what a plan read of a unit (unit-basis.ts): its file, enablement and whether it runs change
// the reading; what moves with no hand on it (a crash loop's restarts, times, a new invocation, the stack's records)
// does not, so the apply refuses a unit changed after its plan and never one merely still running.
import { dropInBasis, dropInMoved, dropInStamps, unitBasis, unitMoved } from '../../../../src/linux/unit-basis';
import type { DropInSpec } from '../../../../src/linux/systemd-drop-in';
import type { LiveUnit } from '../../../../src/linux/unit-control';
import type { UnitStatus } from '../../../../src/linux/unit-state';
import { unitSpec } from '../../../support/unit-host';
import { runningStatus } from '../../../support/unit-status';

const spec = unitSpec('a.service', '[Service]\nExecStart=/bin/true\n');
const live = (status: Partial<UnitStatus> = {}, over: Partial<LiveUnit> = {}): LiveUnit => ({
  status: runningStatus(status),
  fileSha256: 'f1',
  fileStat: { time: 1, file: '8:1', bytes: 10 },
  restartOn: 'r1',
  ...over,
});
/** An edit by hand: its content and its stamp (a later ctime, another size) both read otherwise. */
const edited = { fileSha256: 'f2', fileStat: { time: 2, file: '8:1', bytes: 11 } };
const planned = unitBasis(spec, live());

test.each([
  ['restarted (a new invocation, start time)', live({ invocation: 'x', startedAt: 9, stateSince: 9 })],
  ['in a crash loop between restarts', live({ activeState: 'activating', subState: 'auto-restart' })],
  ['recorded again by an apply', live({}, { restartOn: 'r2', stateSeconds: 4, contentChangedAt: 3 })],
])('a unit %s reads as the plan read it', (_what, now) => {
  expect(unitMoved(spec, 'h:22', planned, now)).toBeUndefined();
});

test.each([
  ['whose file was edited', live({}, edited)],
  ['whose file was replaced by a link', live({}, { fileIsLink: true })],
  ['disabled', live({ unitFileState: 'disabled' })],
  ['masked', live({ unitFileState: 'masked', loadState: 'masked' })],
  ['stopped', live({ activeState: 'inactive', subState: 'dead' })],
])('a unit %s after its plan is refused', (_what, now) => {
  expect(unitMoved(spec, 'h:22', planned, now)?.message).toMatch(
    /^a\.service on h:22 cannot be applied as planned: it was changed after the plan read it .* nothing was written/,
  );
});

test('the basis is a short digest of the file by its stamp, then its drop-ins', () => {
  expect(planned).toMatch(/^unit read by stamp [0-9a-f]{16} drop-ins none$/);
});

const dropIn = { unit: 'a.service', name: '10-v', directory: '/etc/systemd/system' } as DropInSpec;
const dropInPlanned = dropInBasis(dropIn, live());

test.each([
  ['its unit in a crash loop between restarts', live({ activeState: 'activating', subState: 'auto-restart' })],
  ['its unit disabled (not its own)', live({ unitFileState: 'disabled' })],
])('a drop-in with %s reads as the plan read it', (_what, now) => {
  expect(dropInMoved(dropIn, 'h:22', dropInPlanned, now)).toBeUndefined();
});

test.each([
  ['edited', live({}, edited)],
  ['with its unit started or stopped', live({ activeState: 'inactive', subState: 'dead' })],
])('a drop-in %s after its plan is refused', (_what, now) => {
  expect(dropInMoved(dropIn, 'h:22', dropInPlanned, now)?.message).toMatch(
    /^drop-in \/etc\/systemd\/system\/a\.service\.d\/10-v\.conf on h:22 cannot be applied as planned: it or its unit/,
  );
});

// A drop-in the same apply retires is removed by its destroy hook, which runs before the host's batch apply, and
// reloaded: the unit's loaded drop-ins, the digest over its loaded files and a pending reload move with no hand on
// it. Read into the basis, they refused the unit (or its other drop-in) in that apply (test/e2e/removal.test.ts).
// Such a drop-in carries the stack's mark (an earlier version's names no stack), which the plan read.
const V = '/etc/systemd/system/a.service.d/10-v.conf';
const W = '/etc/systemd/system/a.service.d/20-w.conf';
const X = '/etc/systemd/system/a.service.d/30-x.conf';
const withDropIns = (stamps: Array<[string, string]>, over: Partial<LiveUnit> = {}) =>
  live({ dropInPaths: stamps.map(([path]) => path) }, { dropInStamps: stamps, ...over });
const retiring = withDropIns(
  [
    [V, '1 8:1'],
    [W, '2 8:2'],
  ],
  { content: 'c1', dropInMarks: new Map([V, W].map((path) => [path, undefined])) },
);
// That destroy leaves a trace of the file it removed (drop-in-traces.ts), which the batch apply reads.
const destroyed = (...paths: string[]): Partial<LiveUnit> => ({
  dropInRemovals: { traced: new Map(paths.map((path) => [path, path === V ? '1 8:1' : '2 8:2'])), markedGone: [] },
});
test.each([
  [
    'removed and not yet reloaded',
    withDropIns([[V, '1 8:1']], { content: 'c1', status: retiring.status, ...destroyed(W) }),
  ],
  ['removed and reloaded', withDropIns([[V, '1 8:1']], { content: 'c2', ...destroyed(W) })],
  ['removed with its other drop-in', live({ dropInPaths: [], needDaemonReload: true }, destroyed(V, W))],
])('a sibling drop-in %s by a destroy refuses neither the unit nor its other drop-in', (_what, now) => {
  expect(unitMoved(spec, 'h:22', unitBasis(spec, retiring), now)).toBeUndefined();
  expect(dropInMoved(dropIn, 'h:22', dropInBasis(dropIn, retiring), now)).toBeUndefined();
});

// A drop-in made by hand after the plan went live with the restart, start or reload the plan named for another reason.
test.each([
  [
    'added',
    withDropIns([
      [V, '1 8:1'],
      [W, '2 8:2'],
      [X, '3 8:3'],
    ]),
    X,
  ],
  [
    'edited',
    withDropIns([
      [V, '1 8:1'],
      [W, '4 8:2'],
    ]),
    W,
  ],
  [
    'put in place of another (same time, another file)',
    withDropIns([
      [V, '1 8:1'],
      [W, '2 8:9'],
    ]),
    W,
  ],
])(
  'a sibling drop-in %s by hand after the plan refuses the unit and its other drop-in, naming it',
  (_what, now, path) => {
    expect(unitMoved(spec, 'h:22', unitBasis(spec, retiring), now)?.message).toBe(
      'a.service on h:22 cannot be applied as planned: its drop-ins changed after the plan read it ' +
        `(${path} was added or changed), so this apply would take them live (restart, start or reload it with ` +
        'them), which the plan did not say; nothing was written, started, stopped or restarted for it: plan ' +
        'again, and that plan reads it as it is now',
    );
    expect(dropInMoved(dropIn, 'h:22', dropInBasis(dropIn, retiring), now)?.message).toMatch(
      new RegExp(
        `^drop-in ${V} on h:22 cannot be applied as planned: its unit's other drop-ins changed after the plan ` +
          `read them \\(${path} was added or changed\\)`,
      ),
    );
  },
);

test("a drop-in's own file is judged by its own reading, not among its siblings' stamps", () => {
  const before = withDropIns([
    [V, '1 8:1'],
    [W, '2 8:2'],
  ]);
  expect(
    dropInMoved(
      dropIn,
      'h:22',
      dropInBasis(dropIn, before),
      withDropIns([
        [V, '9 8:7'],
        [W, '2 8:2'],
      ]),
    ),
  ).toBe(undefined);
  expect(
    unitMoved(
      spec,
      'h:22',
      unitBasis(spec, before),
      withDropIns([
        [V, '9 8:7'],
        [W, '2 8:2'],
      ]),
    ),
  ).toBeDefined();
});

test('the drop-ins are read by path and stamp alone, never by their content, which may hold a secret', () => {
  const basis = unitBasis(spec, withDropIns([[V, '1 8:1']], { content: 'c1' }));
  expect(unitBasis(spec, withDropIns([[V, '1 8:1']], { content: 'c2' }))).toBe(basis);
  expect(basis).toMatch(/^unit read by stamp [0-9a-f]{16} drop-ins [0-9a-f]{12} stays [0-9a-f]{12}$/);
});

test('each drop-in is stamped by when it changed and which file it is; one the login could not stat is unseen', () => {
  const stats = new Map([[V, { time: 1.5, file: '8:1' }]]);
  expect(dropInStamps(live({ dropInPaths: [V, W] }).status, stats)).toEqual({
    dropInStamps: [
      [V, '1.5 8:1'],
      [W, '?'],
    ],
  });
  expect(dropInStamps(live().status, stats)).toEqual({});
});

// A read login may not search a drop-in's directory its apply's login can (pid1 lists the path to both): the plan
// took it for one added since, and refused the unit at every apply.
test('a drop-in the plan could not stat is taken as it is; one the apply cannot stat is not added', () => {
  const unseen = withDropIns([[V, '?']]);
  expect(unitMoved(spec, 'h:22', unitBasis(spec, unseen), withDropIns([[V, '1 8:1']]))).toBeUndefined();
  expect(
    unitMoved(
      spec,
      'h:22',
      unitBasis(spec, retiring),
      withDropIns(
        [
          [V, '1 8:1'],
          [X, '?'],
        ],
        destroyed(W),
      ),
    ),
  ).toBeUndefined();
  expect(
    unitMoved(
      spec,
      'h:22',
      unitBasis(spec, unseen),
      withDropIns([
        [V, '1 8:1'],
        [X, '3 8:3'],
      ]),
    ),
  ).toBeDefined();
});

test("an earlier version's basis (no drop-ins) refuses no drop-in: the unit applies as before", () => {
  const earlier = unitBasis(spec, live()).replace(/ drop-ins .*$/, '');
  expect(unitMoved(spec, 'h:22', earlier, withDropIns([[X, '3 8:3']]))).toBeUndefined();
  const earlierDropIn = dropInBasis(dropIn, live()).replace(/ drop-ins .*$/, '');
  expect(dropInMoved(dropIn, 'h:22', earlierDropIn, withDropIns([[X, '3 8:3']]))).toBeUndefined();
});

// A unit bound to one the same apply removes is stopped by that unit's destroy hook before the host's batch apply
// (BindsTo=, PartOf=, Requires=): the plan's reading of it leaves whether it runs to that destroy, or the apply
// refused it as stopped since its plan (test/e2e/binds.test.ts, measured).
const bound = unitBasis(spec, live(), 'dep.service');
test.each([
  ['stopped with it', live({ activeState: 'inactive', subState: 'dead' })],
  ['still running', live()],
])('a unit the plan says a destroy stops reads as planned %s', (_what, now) => {
  expect(unitMoved(spec, 'h:22', bound, now)).toBeUndefined();
});

test.each([
  ['whose file was edited', live({ activeState: 'inactive', subState: 'dead' }, edited)],
  ['disabled', live({ activeState: 'inactive', subState: 'dead', unitFileState: 'disabled' })],
])('a unit the plan says a destroy stops is still refused %s after its plan', (_what, now) => {
  expect(unitMoved(spec, 'h:22', bound, now)?.message).toMatch(/cannot be applied as planned/);
});

test('a drop-in whose unit the plan says a destroy stops reads as planned with its unit stopped, not edited', () => {
  const stopped = live({ activeState: 'inactive', subState: 'dead' });
  expect(dropInMoved(dropIn, 'h:22', dropInBasis(dropIn, live(), 'dep.service'), stopped)).toBeUndefined();
  expect(
    dropInMoved(dropIn, 'h:22', dropInBasis(dropIn, live(), 'dep.service'), { ...stopped, ...edited }),
  ).toBeDefined();
});
