/**
 * The [Install] reader's parts that install-agreement.test.ts does not reach through systemd's measured texts:
 * which drop-ins `systemctl enable` reads (a prefix's and a type's it does not: measured, systemd 252, see
 * test/contract/linux/systemd-prefix-drop-ins.test.ts), the prefixes pid1 applies, and a run of backslashes.
 */
import {
  enableReadsDropIn,
  installSettings,
  installValues,
  prefixUnitsOf,
  sectionSettings,
} from '../../../../src/linux/install-settings';

describe('enableReadsDropIn', () => {
  test.each([
    ['a-b.service', '/etc/systemd/system/a-b.service.d/x.conf', true],
    ['a-b.service', '/run/systemd/system/a-b.service.d/x.conf', true],
    ['a-b.service', '/etc/systemd/system/a-.service.d/x.conf', false],
    ['a-b.service', '/usr/lib/systemd/system/service.d/x.conf', false],
    ['a-b@x.service', '/etc/systemd/system/a-b@.service.d/x.conf', true],
    ['a-b@x.service', '/etc/systemd/system/a-b@x.service.d/x.conf', true],
    ['a-b@x.service', '/etc/systemd/system/a-.service.d/x.conf', false],
  ])('%s reads %s: %s', (unit, path, reads) => expect(enableReadsDropIn(unit, path)).toBe(reads));
});

describe('prefixUnitsOf', () => {
  test.each([
    ['a-b-c.service', ['a-.service', 'a-b-.service']],
    ['a-b.socket', ['a-.socket']],
    ['a-b@x-y.service', ['a-.service']],
    ['a-b@.service', ['a-.service']],
    ['a-.service', []],
    ['plain.service', []],
    ['-a.service', []],
  ])('%s', (unit, prefixes) => expect(prefixUnitsOf(unit)).toEqual(prefixes));
});

describe('the reader', () => {
  test('an even run of backslashes ends a line; an odd one joins the next', () => {
    const text = '[Install]\nWantedBy=a.target\\\\\nAlias=b.service\nRequiredBy=c.target\\\\\\\nd.target\n';
    expect(installSettings(text)).toEqual([
      { key: 'WantedBy', value: 'a.target\\\\' },
      { key: 'Alias', value: 'b.service' },
      { key: 'RequiredBy', value: 'c.target\\\\ d.target' },
    ]);
  });

  test('lines of a section read as its text does, and values fold with resets', () => {
    const lines = ['WantedBy=a.target \\', '; skipped', '  b.target', 'DefaultInstance=x', 'DefaultInstance=y'];
    expect(sectionSettings(lines)).toEqual(installSettings(`[Install]\n${lines.join('\n')}\n`));
    expect(Object.fromEntries(installValues([...sectionSettings(lines), { key: 'Alias', value: '' }]))).toEqual({
      WantedBy: ['a.target', 'b.target'],
      DefaultInstance: ['y'],
      Alias: [],
    });
  });
});
