import { digestOf, sha256Hex } from '../../../../src/core/canonical';
import type { LinkVerb } from '../../../../src/linux/root-helper';
import type { UnitChange } from '../../../../src/linux/unit-batch';
import type { LiveUnit } from '../../../../src/linux/unit-control';
import type { UnitLinks } from '../../../../src/linux/unit-links';
import {
  enabledAgain,
  instancesToReenable,
  keptInstances,
  relinkOf,
  rewritten,
  unlinkedOnUndo,
  unlinksOnly,
} from '../../../../handlers/linux/unit-relink';
import { type Track, trackOf } from '../../../../handlers/linux/unit-track';
import { DIR, service, unit } from './unit-specs';

const before = (unitFileState: string, links?: UnitLinks): LiveUnit => ({
  status: { loadState: 'loaded', activeState: 'inactive', subState: 'dead', unitFileState, needDaemonReload: false },
  fileSha256: undefined,
  restartOn: undefined,
  ...(links === undefined ? {} : { links }),
});
const track = (change: UnitChange, live: LiveUnit, over: Partial<Track> = {}): Track =>
  Object.assign(
    trackOf({ name: 'x', after: [], change }, live, () => undefined),
    over,
  );
const template = (live: LiveUnit, over: Partial<Track> = {}) =>
  track({ sort: 'unit', spec: unit('p@.service', undefined, { enabled: false, started: false }) }, live, over);
const instance = (name: string, live = before('enabled'), enabled = true) =>
  track(
    {
      sort: 'instance',
      spec: {
        name,
        template: 'p@.service',
        directory: DIR,
        enabled,
        started: false,
        restartOn: digestOf([]),
        startTimeoutSeconds: 5,
        unmask: false,
      },
    },
    live,
  );
const MADE = 'multi-user.target.wants/a.service';

describe("a template's rewrite", () => {
  const found = {
    etc: ['multi-user.target.wants/p@a.service', 'multi-user.target.wants/p@b.service', 'q.service'],
    run: ['multi-user.target.wants/p@a.service', 'multi-user.target.wants/p@c.service'],
  };

  // Regression: one enabled until reboot alone was left with the /run link of the old [Install].
  test('re-enables its instances under /etc and under /run where they have links, but those the batch applies', () => {
    const rewrote = template(before('indirect', found), { wrote: true });
    expect(instancesToReenable(rewrote, [rewrote, instance('p@b.service')])).toEqual({
      etc: ['p@a.service'],
      run: ['p@a.service', 'p@c.service'],
    });
    expect(instancesToReenable(template(before('indirect', found)), [])).toEqual({ etc: [], run: [] });
  });

  test("counts as an instance's own rewrite, in this batch", () => {
    const own = instance('p@b.service');
    expect(rewritten(own, [template(before('indirect'), { wrote: true }), own])).toBe(true);
    expect(rewritten(own, [template(before('indirect')), own])).toBe(false);
  });
});

describe('the undo links again', () => {
  const relinked = (over: Partial<Track>, live: LiveUnit) =>
    relinkOf(track({ sort: 'unit', spec: unit('a.service') }, live, over), false);

  test.each<[string, Partial<Track>, LiveUnit, Array<[LinkVerb, string[]]>]>([
    [
      'an enabled unit it disabled, under /etc',
      { switched: 'disable' },
      before('enabled', { etc: [MADE], run: [], install: [MADE] }),
      [['enable', ['a.service']]],
    ],
    // Regression: the undo put back the /etc links alone.
    [
      'one enabled under /etc and /run too, under both',
      { switched: 'disable' },
      before('enabled', { etc: [MADE], run: [MADE], install: [MADE] }),
      [
        ['enable', ['a.service']],
        ['enable-runtime', ['a.service']],
      ],
    ],
    [
      'one it re-enabled, under both: its reenable unlinked /run too',
      { switched: 'reenable' },
      before('enabled', { etc: [MADE], run: [MADE], install: [MADE] }),
      [
        ['enable', ['a.service']],
        ['enable-runtime', ['a.service']],
      ],
    ],
    [
      'one it enabled for good, under /etc alone where its /run links stayed',
      { switched: 'enable' },
      before('enabled-runtime', { etc: [], run: [MADE], install: [MADE] }),
      [],
    ],
    [
      'not a link its [Install] does not make',
      { switched: 'disable' },
      before('enabled', { etc: ['other.target.wants/a.service'], run: [], install: [MADE] }),
      [],
    ],
    [
      'without the links read, as list-unit-files said',
      { switched: 'disable' },
      before('enabled-runtime'),
      [['enable-runtime', ['a.service']]],
    ],
  ])('%s', (_, over, live, expected) => {
    expect(relinked(over, live)).toEqual(expected);
  });

  test("a template's instances, re-enabled from the file put back, under /run too where they were", () => {
    const found = {
      etc: ['multi-user.target.wants/p@a.service'],
      run: ['multi-user.target.wants/p@a.service', 'multi-user.target.wants/p@c.service'],
    };
    const instances = { etc: ['p@a.service'], run: ['p@a.service', 'p@c.service'] };
    expect(relinkOf(template(before('indirect', found), { wrote: true, instances }), false)).toEqual([
      ['reenable', ['p@a.service']],
      ['reenable-runtime', ['p@a.service', 'p@c.service']],
    ]);
    // Its reenable under /run failed: the one enabled both ways lost its /run links to the reenable under /etc.
    const half = { etc: ['p@a.service'], run: [] };
    expect(relinkOf(template(before('indirect', found), { wrote: true, instances: half }), false)).toEqual([
      ['reenable', ['p@a.service']],
      ['reenable-runtime', ['p@a.service']],
    ]);
  });
});

// Regression: the template's `systemctl disable p@.service` (the only verb that removes its alias) unlinked
// p@b.service, which the batch declared enabled: its apply failed after that disable (measured, systemd 252).
describe("a template's disable by its own name", () => {
  const made = ['multi-user.target.wants/p@x.service', 'q@.service'];
  const links = (etc: string[]) => ({ etc, run: [], install: made, defaultInstance: 'p@x.service' });
  const own = ['multi-user.target.wants/p@b.service'];
  const disabled = (etc: string[], rewrite = false, over: Partial<Track> = {}) =>
    template(
      { ...before('enabled', links([...etc, ...own])), fileSha256: rewrite ? 'old' : sha256Hex(service()) },
      over,
    );

  test.each<[string, boolean, boolean, Track]>([
    ['with the alias its enable made there', true, true, disabled(made)],
    ['with its file rewritten', true, true, disabled(made.slice(0, 1), true)],
    ['with that alias, of an instance declared disabled', false, false, disabled(made)],
    ['without that alias, which disables its default instance alone', true, false, disabled(made.slice(0, 1))],
    ['refused before any change', true, false, disabled(made, false, { refused: new Error('masked') })],
  ])('%s: an instance declared enabled (%s) is enabled after it (%s)', (_, enabled, again, t) => {
    const i = instance('p@b.service', before('enabled', links(own)), enabled);
    expect(enabledAgain([t, i]).has(i)).toBe(again);
    expect(enabledAgain([t, i]).has(t)).toBe(false);
  });

  // Regression: p@foo.service and p@bar.service, enabled by hand, stayed unlinked after that disable, and with its file
  // rewritten were re-enabled before it, in vain (measured, systemd 252).
  test('links again after it the instances the batch does not declare, as they were, but its default instance', () => {
    const hand = ['multi-user.target.wants/p@foo.service', 'multi-user.target.wants/p@x.service'];
    const at = (etc: string[], rewrite: boolean) =>
      template(
        {
          ...before('enabled', { ...links([...etc, ...hand, ...own]), run: ['multi-user.target.wants/p@bar.service'] }),
          fileSha256: rewrite ? 'old' : sha256Hex(service()),
        },
        { wrote: rewrite },
      );
    const i = instance('p@b.service', before('enabled', links(own)));
    const kept = { etc: ['p@foo.service'], run: ['p@bar.service'] };
    for (const t of [at(made, false), at(made.slice(0, 1), true)]) {
      expect(keptInstances(t, [t, i])).toEqual(kept);
      expect(instancesToReenable(t, [t, i])).toEqual({ etc: [], run: [] });
    }
    expect(keptInstances(at(made.slice(0, 1), false), [])).toEqual({ etc: [], run: [] });
  });
});

// Regression: the undo enabled the template back, which made every link its [Install] makes, and left those that
// were not there before the relink: a template alias no systemctl verb removes alone (measured, systemd 252).
describe("a relink's undo", () => {
  const install = ['multi-user.target.wants/p@a.service', 'p-al@.service'];
  const relinked = (etc: string[], switched: Track['switched'] = 'relink') =>
    template(before('enabled', { etc, run: [], install, defaultInstance: 'p@a.service' }), { switched });
  test.each([
    ['its alias missing', ['multi-user.target.wants/p@a.service'], ['p-al@.service']],
    ['its link missing', ['p-al@.service'], ['multi-user.target.wants/p@a.service']],
    ['a link by hand', [...install, 'basic.target.wants/p@a.service'], []],
  ])('%s: removes the links its [Install] makes that were not there', (_, etc, unlinked) => {
    expect(unlinkedOnUndo(relinked(etc))).toEqual(unlinked);
    expect(relinkOf(relinked(etc), false)).toEqual([['enable', ['p@.service']]]);
  });
  test('only after a relink', () => {
    expect(unlinkedOnUndo(relinked(['p-al@.service'], 'reenable'))).toEqual([]);
  });
});

// Regression: the undo of a template's enable without DefaultInstance= disabled it, which unlinked every instance,
// p@b.service's among them, where that enable had made its missing alias alone (measured, systemd 252).
describe("the undo of a template's enable without DefaultInstance=", () => {
  const links = { etc: ['multi-user.target.wants/p@b.service', 'p-al@.service'], run: [] };
  const enabled = (wrote: boolean) =>
    template(before('enabled', { ...links, install: ['p-al@.service', 'p-al2@.service'], aliasesOnly: true }), {
      switched: 'enable',
      wrote,
    });
  test('unlinks the aliases it made alone, neither disables nor enables it', () => {
    expect(unlinksOnly(enabled(false))).toBe(true);
    expect(unlinkedOnUndo(enabled(false))).toEqual(['p-al2@.service']);
    expect(relinkOf(enabled(false), false)).toEqual([]);
  });
  test('its file rewritten, as before', () => {
    expect(unlinksOnly(enabled(true))).toBe(false);
    expect(unlinkedOnUndo(enabled(true))).toEqual([]);
  });
});
