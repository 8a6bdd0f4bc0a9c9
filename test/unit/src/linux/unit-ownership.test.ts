import type { LiveUnit } from '../../../../src/linux/unit-control';
import {
  destroyMayAct,
  dropInIsForeign,
  dropInMarkPath,
  leftByDestroy,
  markStackOf,
  unitIsForeign,
} from '../../../../src/linux/unit-ownership';

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

// Issue 27 item 3: a second stack's destroy deleted the first stack's running unit (the mark was per host).
describe('which stack a unit or drop-in is', () => {
  const record = { restartOn: 'a'.repeat(64) };

  test("the intent's stack (the newest apply, which may have taken it over) before the record's", () => {
    expect(markStackOf(live({ ...record, recordStack: 'a' }))).toBe('a');
    expect(markStackOf(live({ ...record, recordStack: 'a', intent: { since: 1, restart: false, stack: 'b' } }))).toBe(
      'b',
    );
    expect(markStackOf(live({ ...record, recordStack: 'a', intent: { since: 1, restart: false } }))).toBe('a');
    expect(markStackOf(live(record))).toBeUndefined();
  });

  test("destroy leaves another stack's object, adopt or not, by hand any stack's; an unnamed mark is its own", () => {
    const theirs = live({ ...record, recordStack: 'a', state: 'active' });
    expect(destroyMayAct(theirs, false, 'b')).toBe(false);
    expect(destroyMayAct(theirs, true, 'b')).toBe(false);
    expect(destroyMayAct(theirs, false, 'a')).toBe(true);
    // A destroy run by hand names no stack: it leaves what a stack marked, saying how to name it.
    expect(destroyMayAct(theirs, false, undefined)).toBe(false);
    expect(leftByDestroy(theirs, undefined, true)).toBe(
      'marked by stack "a", and this destroy names no stack: left as it is (a destroy by hand acts for the ' +
        'stack HOMELAB_STACK names)',
    );
    expect(destroyMayAct(live(record), false, 'b')).toBe(true);
    expect(leftByDestroy(theirs, 'b', true)).toBe(
      'marked by stack "a", not this stack "b": left as it is (that stack manages it)',
    );
    expect(leftByDestroy(live(), 'b', true)).toBe('not created by this stack (never adopted): left as it is');
    expect(leftByDestroy(live(), 'b', false)).toBe('already absent');
  });
});
