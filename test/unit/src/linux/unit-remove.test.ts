/**
 * What a unit's destroy and undo report: the root helper's lines (test/contract/linux/root-helper.test.ts
 * runs them on a real host) split into what was removed, the masks kept, what is left and whether to reload.
 */
import {
  enabledInPid1Only,
  goneButLoaded,
  parseRemoval,
  parseRemovals,
  runBeforeRemoval,
} from '../../../../src/linux/unit-remove';
import { live } from './unit-fixtures';

test('the report splits into what was removed, the masks kept, what is left and whether to reload', () => {
  const report = parseRemoval(
    'removed /u/a.service\nkept /etc/systemd/system/a.service\n' +
      "left /w/a.service: rm: cannot remove '/w/a.service': Read-only file system\nreload\nend\n",
  );
  expect(report).toEqual({
    removed: ['/u/a.service'],
    masks: ['/etc/systemd/system/a.service'],
    left: ["/w/a.service: rm: cannot remove '/w/a.service': Read-only file system"],
    reload: true,
  });
});

test("a destroy request splits into each unit's part, a failed systemctl failing its unit alone", () => {
  const sections = parseRemovals(
    'unit a.service\nremoved /e/a.service\nreload\nend\n' +
      'unit b.service\nfailed Failed to disable unit: Read-only file system\nfailed second line\n' +
      'unit c.service\nremoved /e/c.service\n',
  );
  expect(sections).toEqual([
    {
      name: 'a.service',
      report: { removed: ['/e/a.service'], masks: [], left: [], reload: true },
      complete: true,
    },
    {
      name: 'b.service',
      report: { removed: [], masks: [], left: [], reload: false },
      failed: ['Failed to disable unit: Read-only file system', 'second line'],
      complete: true,
    },
    // Cut short: no load line, no failure.
    { name: 'c.service', report: { removed: ['/e/c.service'], masks: [], left: [], reload: false }, complete: false },
  ]);
});

// A destroy stopped between its removal and its reload (test/contract/linux/systemd-destroy-stopped.test.ts).
test('a file gone from disk that pid1 still has loaded, as the fragment or a drop-in, is told apart', () => {
  const path = '/etc/systemd/system/a.service.d/10-x.conf';
  const gone = { fileSha256: undefined };
  expect(goneButLoaded(live({ dropInPaths: [path] }, gone), path)).toBe(true);
  expect(
    goneButLoaded(live({ fragmentPath: '/etc/systemd/system/a.service' }, gone), '/etc/systemd/system/a.service'),
  ).toBe(true);
  expect(goneButLoaded(live({ dropInPaths: [path] }, { fileSha256: 'ab' }), path)).toBe(false);
  expect(goneButLoaded(live({ dropInPaths: [] }, gone), path)).toBe(false);
  expect(goneButLoaded(live({}, gone), path)).toBe(false);
});

// test/contract/linux/systemd-drop-in-destroy-run.test.ts: the plan was in sync under the removed drop-in's process.
test("a drop-in's destroy records its unit's current run as started with the content it leaves", () => {
  const unit = live({}, { restartOn: 'r1', recordStack: 's1' });
  const dropIn = live({ activeState: 'active', invocation: 'inv1' }, { content: 'c1', fileSha256: 'ab' });
  expect(runBeforeRemoval(unit, dropIn)).toBe('r1 c1 inv1 stack=s1');
  expect(runBeforeRemoval(live({}, { restartOn: undefined }), dropIn)).toBeUndefined();
  expect(runBeforeRemoval(unit, { ...dropIn, fileSha256: undefined })).toBeUndefined();
  expect(runBeforeRemoval(unit, { ...dropIn, status: { ...dropIn.status, activeState: 'inactive' } })).toBeUndefined();
  expect(runBeforeRemoval(unit, { ...dropIn, content: undefined })).toBeUndefined();
});

// An instance's destroy stopped before its reload (test/contract/linux/systemd-destroy-stopped.test.ts).
test('an instance pid1 still holds enabled while its links are gone from disk is told apart', () => {
  expect(enabledInPid1Only(live({ unitFileState: 'disabled', shownUnitFileState: 'enabled' }))).toBe(true);
  expect(enabledInPid1Only(live({ unitFileState: 'disabled', shownUnitFileState: 'enabled-runtime' }))).toBe(true);
  expect(enabledInPid1Only(live({ unitFileState: 'disabled' }))).toBe(false);
  expect(enabledInPid1Only(live({ unitFileState: 'enabled', shownUnitFileState: 'enabled-runtime' }))).toBe(false);
});
