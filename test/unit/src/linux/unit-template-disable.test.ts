import type { LiveUnit } from '../../../../src/linux/unit-control';
import { enablesAgainWords, refusedBefore, templateBefore } from '../../../../src/linux/unit-template-disable';
import { unit } from '../../handlers/linux/unit-specs';

const live = (over: Partial<LiveUnit> = {}, unitFileState = 'enabled'): LiveUnit => ({
  status: { loadState: 'loaded', activeState: 'inactive', subState: 'dead', unitFileState, needDaemonReload: false },
  fileSha256: 'f',
  restartOn: 'r',
  ...over,
});
const spec = unit('p@.service', undefined, { enabled: false, started: false });
const shadowed = { declared: { as: 'unit', path: '/etc/systemd/system/p@.service' } } as const;
const owned = (adopt: boolean, takeOver = false) => ({ adopt, takeOver });

// Regression: a template the apply refused still made both plans say its instance is enabled again after its disable.
describe('a template the apply refuses before any change', () => {
  test.each([
    ['its own', live(), undefined, 's', false],
    ['masked', live({}, 'masked'), undefined, 's', true],
    ['masked, unmask: true', live({}, 'masked'), undefined, 's', false, true],
    ['shadowed', live({ overridden: shadowed }), undefined, 's', true],
    ['not created by this stack', live({ restartOn: undefined }), owned(false), 's', true],
    ['not created by this stack, adopt: true', live({ restartOn: undefined }), owned(true), 's', false],
    ["another stack's", live({ recordStack: 'other' }), owned(true), 's', true],
    ["another stack's, takeOver: true", live({ recordStack: 'other' }), owned(false, true), 's', false],
    ["another stack's, a read by hand", live({ recordStack: 'other' }), undefined, undefined, false],
  ])('%s', (_, before, own, stack, refused, unmask = false) => {
    expect(refusedBefore({ sort: 'unit', spec: { ...spec, unmask }, owned: own }, before, stack)).toBe(refused);
  });

  test('reads no state for its disable in the plan, which then says nothing of it', () => {
    const before = live({ restartOn: undefined });
    expect(templateBefore(spec, [{ sort: 'unit', spec }], before, 's')).toBeUndefined();
    expect(templateBefore(spec, [{ sort: 'unit', spec, owned: owned(true) }], before, 's')).toBe(before);
    expect(templateBefore(spec, [], undefined, 's')).toBeUndefined();
  });
});

// Regression: an instance the apply refuses, which its template's disable unlinks, was said to be enabled again.
describe('an instance the apply refuses before any change', () => {
  const instance = { ...unit('p@b.service', undefined, { started: false }), template: 'p@.service' };
  const enabled = live({ restartOn: undefined, fileSha256: undefined });
  test.each([
    ['its own', live({ fileSha256: undefined }), undefined, false],
    ['shadowed by a file of its name', live({ overridden: shadowed }), undefined, true],
    [
      'with an alias its [Install] does not make',
      live({ links: { etc: [], run: [], aliases: ['/a'] } }),
      undefined,
      true,
    ],
    ['not created by this stack', enabled, owned(false), true],
    ['not created by this stack, adopt: true', enabled, owned(true), false],
  ])('%s', (_, before, own, refused) => {
    expect(refusedBefore({ sort: 'instance', spec: instance, owned: own }, before, 's')).toBe(refused);
  });

  test("the template's words name it apart from those enabled again", () => {
    const words = enablesAgainWords('p@.service', ['p@a.service'], ['p@b.service']);
    expect(words).toContain('the apply then enables p@a.service again');
    expect(words).toContain('unlinks p@b.service too, which this batch declares enabled and the apply refuses');
    expect(enablesAgainWords('p@.service', [], ['p@b.service'])).not.toContain('again');
  });
});
