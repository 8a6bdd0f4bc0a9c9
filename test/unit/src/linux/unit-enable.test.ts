/**
 * Whether a unit can be enabled at all (src/linux/unit-enable.ts): the one rule synth, the handler's spec boundary,
 * the read and the apply share. Regression: a unit or instance declared enabled whose [Install] (its template's)
 * names nothing to link planned an enable that `systemctl enable` only warned about, and the next plan was clean.
 */
import { parseAs } from '../../../../src/core/parse';
import { renderUnit } from '../../../../src/linux/render-unit';
import { unitSpec } from '../../../../src/linux/systemd-unit';
import { diffUnit } from '../../../../src/linux/unit-diff';
import { installConfigOf } from '../../../../src/linux/install-config';
import { cannotEnable } from '../../../../src/linux/unit-enable';
import { sha256Hex } from '../../../../src/core/canonical';
import { live, spec } from './unit-fixtures';

const STATIC = '[Unit]\nDescription=x\n[Service]\nExecStart=/bin/true\n';

describe('installConfigOf', () => {
  test.each([
    ['no [Install]', STATIC, false],
    ['an empty [Install]', `${STATIC}[Install]\n`, false],
    ['a WantedBy= in another section', '[Service]\nWantedBy=multi-user.target\n', false],
    ['WantedBy=', `${STATIC}[Install]\nWantedBy=multi-user.target\n`, true],
    ['RequiredBy=', `${STATIC}[Install]\nRequiredBy=a.target\n`, true],
    ['Alias=', `${STATIC}[Install]\nAlias=y.service\n`, true],
    ['Also=', `${STATIC}[Install]\nAlso=z.socket\n`, true],
    // Regression: it counted; a template with it alone, and its instances, are `static` (measured, systemd 252).
    ['DefaultInstance= alone', `${STATIC}[Install]\nDefaultInstance=a\n`, false],
    ['DefaultInstance= and WantedBy=', `${STATIC}[Install]\nDefaultInstance=a\nWantedBy=b.target\n`, true],
    ['a value in [Install] (text with values)', { pieces: ['[Install]\nWantedBy=', '${v}', '\n'] }, true],
    ['a value outside [Install]', { pieces: ['[Unit]\nDescription=', '${v}', '\n'] }, false],
  ])('%s', (_, content, has) => {
    expect(installConfigOf(content)).toBe(has);
  });

  // Regression: a unit with UpheldBy= alone planned "is absent" on systemd 252, whose enable ignores the key and
  // links nothing (measured); the apply failed its read back. It counts where the host runs 254 or later, or is
  // not known (synth).
  test('UpheldBy= counts on systemd 254 and later, and where the version is not known', () => {
    const upheld = `${STATIC}[Install]\nUpheldBy=multi-user.target\n`;
    expect([installConfigOf(upheld), installConfigOf(upheld, undefined, [], 254)]).toEqual([true, true]);
    expect(installConfigOf(upheld, undefined, [], 252)).toBe(false);
    expect(installConfigOf(`${upheld}WantedBy=a.target\n`, undefined, [], 252)).toBe(true);
  });

  test('sections decide from known names and keys only: a Terraform value there cannot be judged', () => {
    const masked = (text: string) => (text.includes('${') ? 'x' : text);
    const sections = (name: string, key: string) => renderUnit([{ name, lines: [[key, 'a.target']] }]);
    expect(installConfigOf(sections('Install', 'WantedBy'), masked)).toBe(true);
    expect(installConfigOf(sections('Service', 'ExecStart'), masked)).toBe(false);
    expect(installConfigOf(sections('${name}', 'WantedBy'), masked)).toBeUndefined();
    expect(installConfigOf(sections('Install', '${key}'), masked)).toBeUndefined();
  });
});

describe('installConfigOf with drop-ins (systemd 252 honours their [Install] for enable, measured)', () => {
  const WANTED = '[Install]\nWantedBy=multi-user.target\n';
  test.each([
    ['a drop-in adds WantedBy= to a unit without [Install]', STATIC, [['10-x', WANTED]], true],
    ['a drop-in without [Install] adds nothing', STATIC, [['10-x', '[Service]\nNice=5\n']], false],
    [
      "a drop-in's empty WantedBy= resets the unit's",
      `${STATIC}${WANTED}`,
      [['10-x', '[Install]\nWantedBy=\n']],
      false,
    ],
    [
      'a later drop-in sets it again',
      STATIC,
      [
        ['20-b', WANTED],
        ['10-a', '[Install]\nWantedBy=\n'],
      ],
      true,
    ],
    [
      'an earlier drop-in is reset by a later one',
      STATIC,
      [
        ['10-a', WANTED],
        ['20-b', '[Install]\nWantedBy=\n'],
      ],
      false,
    ],
    [
      'files sort with .conf, as systemd: a-b.conf before a.conf',
      STATIC,
      [
        ['a', '[Install]\nWantedBy=\n'],
        ['a-b', WANTED],
      ],
      false,
    ],
    [
      'a reset of one key leaves another',
      `${STATIC}[Install]\nAlias=y.service\n`,
      [['1', '[Install]\nWantedBy=\n']],
      true,
    ],
  ] as const)('%s', (_, content, dropIns, has) => {
    expect(
      installConfigOf(
        content,
        undefined,
        dropIns.map(([name, text]) => ({ name, content: text })),
      ),
    ).toBe(has);
  });

  test('a Terraform value in a known [Install] line of a drop-in counts', () => {
    const dropIn = { name: 'x', content: { pieces: ['[Install]\nWantedBy=', '${v}', '\n'] } };
    expect(installConfigOf(STATIC, undefined, [dropIn])).toBe(true);
  });
});

describe('the handler boundary, which sees one spec and none of its drop-ins', () => {
  const unit = { name: 'plain.service', directory: '/etc/systemd/system', content: STATIC, started: true };
  test('takes a unit spec declared enabled whose own content has no [Install] setting: a drop-in may bring one', () => {
    expect(parseAs(unitSpec, { ...unit, enabled: true }, 'spec').enabled).toBe(true);
  });

  test('leaves enabled out false for it, and true for one whose content has an [Install] setting', () => {
    expect(parseAs(unitSpec, unit, 'spec').enabled).toBe(false);
    const linked = { ...unit, content: `${STATIC}[Install]\nWantedBy=multi-user.target\n` };
    expect(parseAs(unitSpec, linked, 'spec').enabled).toBe(true);
  });
});

describe('a unit or instance that cannot be enabled', () => {
  const instance = { ...spec, name: 'st@a.service', content: undefined, enabled: true };

  test('reads as drift in words when systemd calls it (its template) static on the host', () => {
    expect(diffUnit(instance, live({ unitFileState: 'static' }))).toMatchObject({
      enabled: {
        live:
          'static: its template st@.service on the host names no WantedBy=, RequiredBy=, Alias= or Also= in ' +
          '[Install], so it cannot be enabled',
        want: true,
      },
    });
    expect(diffUnit({ ...instance, enabled: false }, live({ unitFileState: 'static' }))).toEqual({});
    const plain = { ...spec, name: 'plain.service', content: STATIC, enabled: true };
    const fileSha256 = sha256Hex(STATIC);
    expect(diffUnit(plain, live({ unitFileState: 'static' }, { fileSha256 }))).toMatchObject({
      enabled: { live: expect.stringMatching(/^static: plain\.service on the host names no WantedBy=/), want: true },
    });
  });

  const WANTED = '[Install]\nWantedBy=a.target\n';
  const dropIn = (content: string) => ({ name: 'x', content, path: '/etc/systemd/system/st@.service.d/x.conf' });
  test.each([
    ['the template the batch writes has none', STATIC, [], {}, /^its template st@.service names no WantedBy=/],
    ['the template the batch writes has one', `${STATIC}${WANTED}`, [], {}, undefined],
    ["a drop-in of the batch's brings one", STATIC, [dropIn(WANTED)], {}, undefined],
    [
      'the host loads a drop-in the batch does not declare',
      STATIC,
      [],
      { dropInPaths: ['/run/systemd/system/st@.service.d/a.conf'] },
      undefined,
    ],
    ['the host says static, no template in the batch', undefined, [], {}, /^static: its template st@.service/],
    ['the host says static, a drop-in of the batch may change it', undefined, [dropIn(WANTED)], {}, undefined],
    ['the host says disabled, no template in the batch', undefined, [], { unitFileState: 'disabled' }, undefined],
  ])('the apply judges an instance when %s', (_, template, dropIns, status, refused) => {
    const state = { unitFileState: 'static', ...status };
    const declared = { name: 'st@a.service', enabled: true, template: 'st@.service' };
    const why = cannotEnable(declared, template, dropIns, state);
    if (refused === undefined) expect(why).toBeUndefined();
    else expect(why).toMatch(refused);
    expect(cannotEnable({ ...declared, enabled: false }, template, dropIns, state)).toBeUndefined();
  });

  test('the apply refuses a unit whose file and drop-ins of the batch have none', () => {
    const declared = { name: 'plain.service', enabled: true };
    const path = '/etc/systemd/system/plain.service.d/x.conf';
    expect(cannotEnable(declared, STATIC, [], { unitFileState: 'static' })).toMatch(/^its file names no WantedBy=/);
    const withDropIn = [{ name: 'x', content: WANTED, path }];
    expect(
      cannotEnable(declared, STATIC, withDropIn, { unitFileState: 'static', dropInPaths: [path] }),
    ).toBeUndefined();
  });

  // Regression: the host's prefix drop-in made the plan give up judging; the apply's enable then linked nothing.
  test("the apply refuses it whatever a prefix's or a type's drop-in on the host says: enable reads neither", () => {
    const declared = { name: 'pa-b.service', enabled: true };
    const dropInPaths = ['/etc/systemd/system/pa-.service.d/10-install.conf', '/lib/systemd/system/service.d/a.conf'];
    for (const unitFileState of ['static', 'disabled'])
      expect(cannotEnable(declared, STATIC, [], { unitFileState, dropInPaths })).toMatch(
        /^its file names no WantedBy=/,
      );
    const own = ['/etc/systemd/system/pa-b.service.d/x.conf'];
    expect(cannotEnable(declared, STATIC, [], { unitFileState: 'static', dropInPaths: own })).toBeUndefined();
  });
});

// Regression: a unit static on the host whose stack adds a drop-in with WantedBy= read "so it cannot be enabled"
// while the apply enables it; one whose new drop-in empties WantedBy= read in sync while the apply refuses it.
describe('the read of a unit declared enabled knows what its batch writes (enableWords)', () => {
  const WANTED = '[Install]\nWantedBy=multi-user.target\n';
  const plain = { ...spec, name: 'plain.service', content: STATIC, enabled: true };
  const path = (name: string) => `/etc/systemd/system/plain.service.d/${name}.conf`;
  const dropIn = (name: string, content: string) => ({ name, content, path: path(name) });
  const kept = (unitFileState: string, over: object = {}) =>
    live({ unitFileState, ...over }, { fileSha256: sha256Hex(plain.content) });
  const CANNOT = 'names no WantedBy=, RequiredBy=, Alias= or Also= in [Install]';
  const ENABLES = "yet; the apply writes its drop-in's [Install] and enables it";

  test('static on the host, with a drop-in of the batch that brings [Install]: the apply enables it', () => {
    const batch = { text: STATIC, dropIns: [dropIn('10-install', WANTED)] };
    const enables = `static: plain.service on the host ${CANNOT} ${ENABLES}`;
    expect(diffUnit(plain, kept('static'), batch)).toEqual({ enabled: { live: enables, want: true } });
    // Without the batch (a read by hand), systemd's word alone.
    expect(diffUnit(plain, kept('static'))).toEqual({
      enabled: { live: `static: plain.service on the host ${CANNOT}, so it cannot be enabled`, want: true },
    });
  });

  test.each([
    [
      'the host loads a drop-in the batch does not write',
      [dropIn('10-install', WANTED)],
      ['/run/systemd/system/plain.service.d/x.conf'],
    ],
    ['the batch has no drop-in of it', [], []],
    ['its last drop-in empties WantedBy=', [dropIn('a-b', WANTED), dropIn('a', '[Install]\nWantedBy=\n')], []],
  ])('static on the host, when %s: it cannot be enabled', (_, dropIns, dropInPaths) => {
    const diff = diffUnit(plain, kept('static', { dropInPaths }), { text: STATIC, dropIns });
    expect(diff.enabled?.live).toBe(`static: plain.service on the host ${CANNOT}, so it cannot be enabled`);
  });

  // Regression: the host's prefix drop-in read as one the batch does not write: "cannot be enabled", and it was.
  test("static on the host, with a prefix drop-in there: the batch's drop-in of it still enables it", () => {
    const prefixed = { ...plain, name: 'pa-b.service' };
    const own = { ...dropIn('10-install', WANTED), path: '/etc/systemd/system/pa-b.service.d/10-install.conf' };
    const dropInPaths = ['/etc/systemd/system/pa-.service.d/x.conf'];
    expect(diffUnit(prefixed, kept('static', { dropInPaths }), { text: STATIC, dropIns: [own] })).toEqual({
      enabled: { live: `static: pa-b.service on the host ${CANNOT} ${ENABLES}`, want: true },
    });
  });

  test("an instance static by its template only the host has: the batch's drop-in of it counts", () => {
    const instance = { ...spec, name: 'st@a.service', content: undefined, enabled: true };
    const batch = {
      text: undefined,
      dropIns: [{ ...dropIn('x', WANTED), path: '/etc/systemd/system/st@a.service.d/x.conf' }],
    };
    expect(diffUnit(instance, live({ unitFileState: 'static' }), batch).enabled?.live).toBe(
      `static: its template st@.service on the host ${CANNOT} ${ENABLES}`,
    );
  });

  test('enabled on the host, with a drop-in of the batch that empties its WantedBy=: the apply refuses it', () => {
    const linked = { ...plain, content: `${STATIC}${WANTED}` };
    const batch = { text: linked.content, dropIns: [dropIn('10-install', '[Install]\nWantedBy=\n')] };
    const state = live({ unitFileState: 'enabled' }, { fileSha256: sha256Hex(linked.content) });
    const why = `its file ${CANNOT}, nor does a drop-in of it, so it cannot be enabled`;
    expect(diffUnit(linked, state, batch)).toEqual({ enabled: { live: why, want: true } });
    expect(cannotEnable(linked, batch.text, batch.dropIns, state.status)).toBe(why);
    const disabled = live({ unitFileState: 'disabled' }, { fileSha256: sha256Hex(linked.content) });
    expect(diffUnit({ ...linked, enabled: false }, disabled, batch)).toEqual({});
    expect(diffUnit(linked, state)).toEqual({});
  });
});
