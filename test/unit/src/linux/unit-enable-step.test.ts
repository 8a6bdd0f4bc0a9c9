/**
 * Whether the apply enables, re-enables or disables a unit, decided before its daemon-reload from the spec, the
 * read and whether the apply writes the file: a rewritten enabled unit is re-enabled, since `enable` only adds
 * links and a changed WantedBy= left the old target's link.
 */
import { linkSteps } from '../../../../src/linux/root-helper';
import type { UnitLinks } from '../../../../src/linux/unit-links';
import type { UnitSpec } from '../../../../src/linux/systemd-unit';
import { enableNeedsReload, enableStep, type EnableStep, linkedName } from '../../../../src/linux/unit-enable-step';
import type { UnitStatus } from '../../../../src/linux/unit-state';
import { content, live, spec } from './unit-fixtures';

describe('enable and disable, decided before the reload', () => {
  test.each<[string, Partial<UnitSpec>, Partial<UnitStatus>, boolean, EnableStep | undefined]>([
    ['a disabled unit declared enabled is enabled', { enabled: true }, {}, false, 'enable'],
    // Regression: `enable` only adds links, so a changed WantedBy= left the old target's link.
    [
      'an enabled unit is re-enabled after its file changed, so its links follow its new [Install]',
      { enabled: true },
      { unitFileState: 'enabled' },
      true,
      'reenable',
    ],
    ['a disabled unit whose file changed is enabled', { enabled: true }, {}, true, 'enable'],
    ['an enabled unit left as it is stays so', { enabled: true }, { unitFileState: 'enabled' }, false, undefined],
    ['an enabled unit declared disabled is disabled', {}, { unitFileState: 'enabled' }, false, 'disable'],
    [
      'a new unit, which no read could see enabled, is enabled',
      { enabled: true },
      { loadState: 'not-found', unitFileState: '' },
      true,
      'enable',
    ],
    [
      'an instance of a template not loaded yet is enabled',
      { enabled: true },
      { loadState: 'not-found', unitFileState: '' },
      false,
      'enable',
    ],
    [
      'a masked unit being unmasked is enabled',
      { enabled: true },
      { loadState: 'masked', unitFileState: 'masked' },
      false,
      'enable',
    ],
    [
      'a unit enabled until reboot alone declared enabled is enabled for good',
      { enabled: true },
      { unitFileState: 'enabled-runtime' },
      false,
      'enable',
    ],
    [
      'a unit enabled until reboot alone declared disabled is disabled',
      {},
      { unitFileState: 'enabled-runtime' },
      false,
      'disable',
    ],
    // Regression: one whose [Install] a drop-in the apply writes brings was left unlinked, and its read-back failed.
    [
      'a static unit declared enabled is enabled: a drop-in of the batch may bring its [Install]',
      { enabled: true },
      { unitFileState: 'static' },
      false,
      'enable',
    ],
    ['a static unit declared disabled is neither', {}, { unitFileState: 'static' }, false, undefined],
    [
      'a static template declared enabled is neither: its instances are enabled',
      { enabled: true, name: 't@.service' },
      { unitFileState: 'static' },
      false,
      undefined,
    ],
    [
      'a static unit whose file changed is enabled (systemctl only warns)',
      { enabled: true },
      { unitFileState: 'static' },
      true,
      'enable',
    ],
  ])('%s', (_, specOver, statusOver, written, expected) => {
    expect(enableStep({ ...spec, ...specOver }, live(statusOver), written)).toBe(expected);
  });

  const made = ['multi-user.target.wants/check.service'];
  // Regression: list-unit-files said `enabled` with a link by hand in another target, and nothing removed it.
  test.each<[string, boolean, Partial<UnitStatus>, UnitLinks, boolean, EnableStep | undefined]>([
    [
      'an enabled unit with a link its [Install] does not make is re-enabled',
      true,
      { unitFileState: 'enabled' },
      { etc: [...made, 'graphical.target.wants/check.service'], run: [], install: made },
      false,
      'reenable',
    ],
    [
      'one with such a link under /run alone is re-enabled',
      true,
      { unitFileState: 'enabled' },
      { etc: made, run: ['graphical.target.wants/check.service'], install: made },
      false,
      'reenable',
    ],
    [
      'an enabled unit missing a link its [Install] makes is re-enabled',
      true,
      { unitFileState: 'enabled' },
      { etc: [], run: [], install: made },
      false,
      'reenable',
    ],
    [
      'one with its links as its [Install] makes them, /run too, is left',
      true,
      { unitFileState: 'enabled' },
      { etc: made, run: made, install: made },
      false,
      undefined,
    ],
    [
      'a unit declared disabled with any link is disabled',
      false,
      { unitFileState: 'disabled' },
      { etc: made, run: [], install: made },
      false,
      'disable',
    ],
    [
      "a unit enabled until reboot alone whose file changed is re-enabled: its /run links are the old [Install]'s",
      true,
      { unitFileState: 'enabled-runtime' },
      { etc: [], run: made, install: made },
      true,
      'reenable',
    ],
    [
      'links are not judged for a static unit: declared enabled, it is enabled, not re-enabled',
      true,
      { unitFileState: 'static' },
      { etc: made, run: [], install: [] },
      false,
      'enable',
    ],
  ])('%s', (_, enabled, statusOver, links, written, expected) => {
    expect(enableStep({ ...spec, enabled }, live(statusOver, { links }), written)).toBe(expected);
  });

  // Regression: a template's DefaultInstance= links removed by hand read in sync; its reenable unlinks every
  // instance (measured, systemd 252), that of its default instance only the links named for it.
  test.each<[string, Partial<UnitStatus>, boolean, EnableStep | undefined, string]>([
    [
      'a template missing a link, another instance keeping it indirect',
      { unitFileState: 'indirect' },
      false,
      'reenable',
      'd@x.service',
    ],
    ['a template whose file the apply rewrites', { unitFileState: 'enabled' }, true, 'reenable', 'd@.service'],
    // Regression: the template's disable unlinked d@y.service, an instance object's (measured, systemd 252).
    ['a template declared disabled with its link', { unitFileState: 'enabled' }, false, 'disable', 'd@x.service'],
  ])('%s is re-enabled by the name it acts on', (_, statusOver, written, step, name) => {
    const template = { ...spec, name: 'd@.service', enabled: step !== 'disable' };
    const links = {
      etc: [
        'a.target.wants/d@y.service',
        ...(statusOver.unitFileState === 'enabled' ? ['b.target.wants/d@x.service'] : []),
      ],
      run: [],
      install: ['a.target.wants/d@x.service'],
      defaultInstance: 'd@x.service',
    };
    expect(enableStep(template, live(statusOver, { links }), written)).toBe(step);
    expect(linkedName(template, live(statusOver, { links }), written)).toBe(name);
  });

  // Regression: a template without DefaultInstance= whose alias was removed by hand read in sync; its enable makes
  // that alias alone, where its reenable or disable unlinks every instance (measured, systemd 252).
  test('a template without DefaultInstance= missing an alias its enable makes is enabled by its name', () => {
    const template = { ...spec, name: 'd@.service', enabled: true };
    const links = { etc: ['a.target.wants/d@y.service'], run: [], install: ['e@.service'], aliasesOnly: true as const };
    const before = live({ unitFileState: 'indirect' }, { links });
    expect(enableStep(template, before, false)).toBe('enable');
    expect(linkedName(template, before, false)).toBe('d@.service');
    const both = live({ unitFileState: 'enabled' }, { links: { ...links, install: ['e@.service', 'f@.service'] } });
    expect(enableStep(template, { ...both, links: { ...both.links!, etc: ['e@.service'] } }, false)).toBe('enable');
    expect(
      enableStep(template, live({ unitFileState: 'enabled' }, { links: { ...links, etc: ['e@.service'] } }), false),
    ).toBeUndefined();
  });

  // Regression: with Alias= too, its links read in sync. The instance's reenable would link the instance's alias,
  // which the template's enable does not make: the default instance is unlinked and the template enabled.
  test('a template whose enable makes an alias relinks its default instance; declared disabled, it unlinks all', () => {
    const template = { ...spec, name: 'd@.service', enabled: true };
    const links = {
      etc: ['a.target.wants/d@y.service', 'e@.service'],
      run: [],
      install: ['a.target.wants/d@x.service', 'e@.service'],
      defaultInstance: 'd@x.service',
    };
    const before = live({ unitFileState: 'enabled' }, { links });
    expect(enableStep(template, before, false)).toBe('relink');
    expect(linkedName(template, before, false)).toBe('d@x.service');
    expect(linkSteps('relink', ['d@x.service'])).toEqual([
      ['systemctl', 'disable', '--no-reload', 'd@x.service'],
      ['systemctl', 'disable', '--no-reload', '--runtime', 'd@x.service'],
      ['systemctl', 'enable', '--no-reload', 'd@.service'],
    ]);
    // Declared disabled: only the template's disable removes its alias, every instance's links with it.
    expect(enableStep({ ...template, enabled: false }, before, false)).toBe('disable');
    expect(linkedName({ ...template, enabled: false }, before, false)).toBe('d@.service');
  });

  test('only an instance or a unit with Alias= or Also= needs a reload to show its enablement', () => {
    expect(enableNeedsReload(spec)).toBe(false);
    expect(enableNeedsReload({ ...spec, content: `${content}[Install]\nAlias=other.service\n` })).toBe(true);
    expect(enableNeedsReload({ ...spec, content: undefined })).toBe(true);
  });
});
