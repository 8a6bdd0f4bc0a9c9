/**
 * What a unit's destroy and undo report: the root helper's lines (test/contract/linux/root-helper.test.ts
 * runs them on a real host) split into what was removed, the masks kept, what is left and the load state.
 */
import { parseRemoval, parseRemovals } from '../../../../src/linux/unit-remove';

test('the report splits into what was removed, the masks kept, what is left and the load state', () => {
  const report = parseRemoval(
    'removed /u/a.service\nkept /etc/systemd/system/a.service\n' +
      "left /w/a.service: rm: cannot remove '/w/a.service': Read-only file system\nreload\nload masked\n",
  );
  expect(report).toEqual({
    removed: ['/u/a.service'],
    masks: ['/etc/systemd/system/a.service'],
    left: ["/w/a.service: rm: cannot remove '/w/a.service': Read-only file system"],
    loadState: 'masked',
    reload: true,
  });
});

test("a destroy request splits into each unit's part, a failed systemctl failing its unit alone", () => {
  const sections = parseRemovals(
    'unit a.service\nremoved /e/a.service\nreload\nload loaded\n' +
      'unit b.service\nfailed Failed to disable unit: Read-only file system\nfailed second line\n' +
      'unit c.service\nremoved /e/c.service\n',
  );
  expect(sections).toEqual([
    {
      name: 'a.service',
      report: { removed: ['/e/a.service'], masks: [], left: [], loadState: 'loaded', reload: true },
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
