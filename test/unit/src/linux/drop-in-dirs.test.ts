/**
 * The dating of a unit's drop-in directories and the files a pending reload keeps: a host drop-in removed under a
 * process started with it read in sync (contract: systemd-removed-drop-in.test.ts).
 */
import {
  dirTimesByPath,
  dropInDirsChangedAt,
  pathsAfterReload,
  withDirsChangedAt,
} from '../../../../src/linux/drop-in-dirs';
import { statsByPath } from '../../../../src/linux/unit-loaded';
import type { UnitStatus } from '../../../../src/linux/unit-state';

const STATS = [
  '100.5 1:2 /etc/systemd/system/a-b.service',
  'l100.5 /etc/systemd/system/a-b.service',
  'd300.25 /etc/systemd/system/a-b.service.d',
  'd400 /run/systemd/system/a-.service.d',
  'd500 /etc/systemd/system/service.d',
  'd900 /etc/systemd/system/other.service.d',
].join('\n');

describe('drop-in directories', () => {
  test('are read from their own lines alone, beside the files', () => {
    expect(dirTimesByPath(STATS).get('/etc/systemd/system/a-b.service.d')).toBe(300.25);
    expect(dirTimesByPath(STATS).has('/etc/systemd/system/a-b.service')).toBe(false);
    expect(statsByPath(STATS).has('/etc/systemd/system/a-b.service.d')).toBe(false);
  });

  test.each([
    ["its own, its prefix's and its type's, not another unit's", ['a-b.service'], STATS, 500],
    ['its own alone', ['a-b.service'], 'd300.25 /etc/systemd/system/a-b.service.d', 300.25],
    ["an alias's", ['x.service', 'al.service'], 'd700 /etc/systemd/system/al.service.d', 700],
    ["an instance's template's", ['t@i.service'], 'd600 /usr/lib/systemd/system/t@.service.d', 600],
    ['none there', ['c.service'], 'd900 /etc/systemd/system/other.service.d', undefined],
  ])('date a unit by the newest of %s', (_, known, text, at) => {
    expect(dropInDirsChangedAt(known, dirTimesByPath(text))).toBe(at);
  });

  test('date content no earlier than them, and leave content they cannot date as it is', () => {
    expect(withDirsChangedAt({ content: 'c', contentChangedAt: 100 }, 300)).toEqual({
      content: 'c',
      contentChangedAt: 300,
    });
    expect(withDirsChangedAt({ content: 'c', contentChangedAt: 400 }, 300)).toEqual({
      content: 'c',
      contentChangedAt: 400,
    });
    expect(withDirsChangedAt({ content: 'c' }, 300)).toEqual({ content: 'c' });
    expect(withDirsChangedAt({}, 300)).toEqual({});
  });
});

describe('the files a pending reload keeps', () => {
  const status = (needDaemonReload: boolean): UnitStatus => ({
    loadState: 'loaded',
    activeState: 'active',
    subState: 'running',
    unitFileState: 'enabled',
    needDaemonReload,
    contentPaths: ['/etc/systemd/system/u.service', '/etc/systemd/system/u.service.d/gone.conf', '/x/unreadable.conf'],
  });
  const digests = new Map([['/etc/systemd/system/u.service', 'd1']]);
  const stats = statsByPath('100 1:2 /etc/systemd/system/u.service\n100 1:3 /x/unreadable.conf');

  test('leave out a loaded drop-in gone from disk while systemd awaits a reload, keep one there but unread', () => {
    expect(pathsAfterReload(status(true), digests, stats)).toEqual([
      '/etc/systemd/system/u.service',
      '/x/unreadable.conf',
    ]);
  });

  test('are every loaded file when no reload is pending', () => {
    expect(pathsAfterReload(status(false), digests, stats)).toEqual(status(false).contentPaths);
  });
});
