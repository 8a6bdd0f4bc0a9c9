/**
 * A drop-in only the host has (made by hand, not the stack's) counts for `enabled` as systemd 252's enable reads
 * it (src/linux/unit-enable.ts): by file name with the batch's. Regression: one that emptied WantedBy= of a unit
 * declared enabled was judged only by the apply's read back, after the apply had changed the host.
 */
import { sha256Hex } from '../../../../src/core/canonical';
import { diffUnit } from '../../../../src/linux/unit-diff';
import { cannotEnable } from '../../../../src/linux/unit-enable';
import { readLinks } from '../../../../src/linux/unit-links';
import { live, spec } from './unit-fixtures';

const E = '/etc/systemd/system';
const STATIC = '[Unit]\nDescription=x\n[Service]\nExecStart=/bin/true\n';
const WANTED = '[Install]\nWantedBy=multi-user.target\n';
const OWN = `${STATIC}${WANTED}`;
const OFF = `${E}/h.service.d/zz-off.conf`;
const declared = { name: 'h.service', enabled: true };
const batchDropIn = (name: string, content: string, directory = E) => ({
  name,
  content,
  path: `${directory}/h.service.d/${name}.conf`,
});
const cannot = (paths: string) =>
  `its [Install] names no WantedBy=, RequiredBy=, Alias= or Also= once the host's ${paths}, not the stack's, ` +
  'is read (remove it to end this), so it cannot be enabled';

describe('the apply judges a unit declared enabled with the drop-ins of the host it read', () => {
  const status = (unitFileState: string, dropInPaths: string[]) => ({ unitFileState, dropInPaths });

  test.each([
    ['empties the WantedBy= of its file', OWN, [], ['WantedBy='], cannot(`drop-in ${OFF}`)],
    [
      "empties the WantedBy= of the batch's drop-in before it",
      STATIC,
      [batchDropIn('10-on', WANTED)],
      ['WantedBy='],
      cannot(`drop-in ${OFF}`),
    ],
    [
      "sorts before the batch's drop-in that sets one",
      STATIC,
      [batchDropIn('zzz-on', WANTED)],
      ['WantedBy='],
      undefined,
    ],
    ['brings the WantedBy= its file lacks', STATIC, [], ['WantedBy=a.target'], undefined],
    ['has no [Install] of a file that has none', STATIC, [], [], /^its file names no WantedBy=/],
    ['empties one its file never had', STATIC, [], ['WantedBy='], /^its file names no WantedBy=/],
  ])('refused or not when the host drop-in %s', (_, text, dropIns, lines, refused) => {
    const host = new Map([[OFF, lines]]);
    for (const unitFileState of ['enabled', 'static', 'disabled']) {
      const why = cannotEnable(declared, text, dropIns, status(unitFileState, [OFF]), host);
      if (refused === undefined) expect(why).toBeUndefined();
      else expect(why).toMatch(refused);
    }
    expect(cannotEnable({ ...declared, enabled: false }, text, dropIns, status('static', [OFF]), host)).toBeUndefined();
  });

  test('a host drop-in the read could not read leaves it to the read back', () => {
    expect(cannotEnable(declared, OWN, [], status('enabled', [OFF]), new Map())).toBeUndefined();
    expect(cannotEnable(declared, OWN, [], status('enabled', [OFF]))).toBeUndefined();
  });

  test("one of the file name the batch writes is the batch's, wherever it is; a prefix's is not read", () => {
    const shadowed = `/run/systemd/system/h.service.d/10-on.conf`;
    const host = new Map([[shadowed, ['WantedBy=']]]);
    expect(
      cannotEnable(declared, STATIC, [batchDropIn('10-on', WANTED)], status('static', [shadowed]), host),
    ).toBeUndefined();
    const prefix = `${E}/h-.service.d/zz-off.conf`;
    expect(
      cannotEnable({ ...declared, name: 'h-a.service' }, OWN, [], status('enabled', [prefix]), new Map()),
    ).toBeUndefined();
  });

  test("an instance whose template's [Install] a host drop-in of the template empties", () => {
    const path = `${E}/t@.service.d/zz-off.conf`;
    const instance = { name: 't@a.service', enabled: true, template: 't@.service' };
    expect(cannotEnable(instance, OWN, [], status('enabled', [path]), new Map([[path, ['WantedBy=']]]))).toBe(
      `its template t@.service's [Install] names no WantedBy=, RequiredBy=, Alias= or Also= once the host's ` +
        `drop-in ${path}, not the stack's, is read (remove it to end this), so it cannot be enabled`,
    );
  });

  test('two host drop-ins that take it away are both named', () => {
    const other = `${E}/h.service.d/yy-off.conf`;
    const host = new Map([
      [OFF, ['WantedBy=']],
      [other, ['WantedBy=']],
    ]);
    expect(cannotEnable(declared, OWN, [], status('enabled', [other, OFF]), host)).toBe(
      `its [Install] names no WantedBy=, RequiredBy=, Alias= or Also= once the host's drop-ins ${other}, ${OFF}, ` +
        "not the stack's, are read (remove them to end this), so it cannot be enabled",
    );
  });
});

describe('the plan reads it in the words of the apply', () => {
  const unit = { ...spec, name: 'h.service', content: OWN, enabled: true };
  const batch = { text: OWN, dropIns: [] };
  const links = {
    etc: ['multi-user.target.wants/h.service'],
    run: [],
    install: [],
    dropIns: new Map([[OFF, ['WantedBy=']]]),
  };

  test.each(['enabled', 'static'])('systemd says %s, its file kept', (unitFileState) => {
    const read = live({ unitFileState, dropInPaths: [OFF] }, { fileSha256: sha256Hex(OWN), links });
    expect(diffUnit(unit, read, batch)).toMatchObject({ enabled: { live: cannot(`drop-in ${OFF}`), want: true } });
  });

  test('its file rewritten', () => {
    const read = live({ unitFileState: 'static', dropInPaths: [OFF] }, { fileSha256: sha256Hex(STATIC), links });
    expect(diffUnit(unit, read, batch)).toMatchObject({ enabled: { live: cannot(`drop-in ${OFF}`), want: true } });
  });

  test("the links read gives each read drop-in's [Install] lines that enable reads, by path", () => {
    const text = [`@${E}/h.service`, '|WantedBy=multi-user.target', `@${OFF}`, '|WantedBy='].join('\n');
    const read = readLinks(['h.service'], text)(
      'h.service',
      [`${E}/h.service`, OFF, `${E}/h-.service.d/x.conf`],
      () => true,
    );
    expect(read.dropIns).toEqual(new Map([[OFF, ['WantedBy=']]]));
    const unread = readLinks(['h.service'], text)('h.service', [`${E}/h.service`, OFF], (path) => path !== OFF);
    expect(unread.dropIns).toBeUndefined();
  });
});
