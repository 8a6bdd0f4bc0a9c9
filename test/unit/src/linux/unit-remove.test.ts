/**
 * What a unit's destroy and undo report: the root helper's lines (test/contract/linux/root-helper.test.ts
 * runs them on a real host) split into what was removed, the masks kept, what is left and the load state.
 */
import { parseRemoval } from '../../../../src/linux/unit-remove';

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
