/**
 * What a unit's destroy and undo report: the root helper's lines (test/contract/linux/root-helper.test.ts
 * runs them on a real host) split into what was removed, the masks kept, what is left and whether to reload.
 */
import { parseRemoval, parseRemovals } from '../../../../src/linux/unit-remove';

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
