import type { LiveUnit } from '../../../../src/linux/unit-control';
import { dropInIsForeign, dropInMarkPath, unitIsForeign } from '../../../../src/linux/unit-ownership';

const live = (over: Partial<LiveUnit> & { state?: string; enabled?: string } = {}): LiveUnit => ({
  status: {
    loadState: 'loaded',
    activeState: over.state ?? 'inactive',
    subState: 'dead',
    unitFileState: over.enabled ?? 'disabled',
    needDaemonReload: false,
  },
  fileSha256: 'f'.repeat(64),
  restartOn: undefined,
  ...over,
});

describe('which units the stack made', () => {
  test('a unit file without a restartOn record is foreign; with one (any version wrote it) it is ours', () => {
    expect(unitIsForeign(live(), true)).toBe(true);
    expect(unitIsForeign(live({ restartOn: 'a'.repeat(64) }), true)).toBe(false);
    expect(unitIsForeign(live({ fileSha256: undefined }), true)).toBe(false);
  });

  test('an instance is foreign when enabled or running without a record, absent when neither', () => {
    const instance = { fileSha256: undefined };
    expect(unitIsForeign(live({ ...instance, enabled: 'enabled' }), false)).toBe(true);
    expect(unitIsForeign(live({ ...instance, state: 'active' }), false)).toBe(true);
    expect(unitIsForeign(live({ ...instance, state: 'failed' }), false)).toBe(false);
    expect(unitIsForeign(live({ ...instance, state: 'active', restartOn: 'a'.repeat(64) }), false)).toBe(false);
  });

  test('a drop-in file is foreign without its mark, which lives under /var/lib where systemd never looks', () => {
    expect(dropInIsForeign(live())).toBe(true);
    expect(dropInIsForeign(live({ restartOn: 'cdktf-homelab' }))).toBe(false);
    expect(dropInIsForeign(live({ fileSha256: undefined }))).toBe(false);
    const dropIn = { unit: "it's.service", name: '10-x', directory: '/etc/systemd/system' };
    expect(dropInMarkPath(dropIn)).toBe("/var/lib/cdktf-homelab/drop-ins/etc/systemd/system/it's.service.d/10-x.conf");
  });
});
