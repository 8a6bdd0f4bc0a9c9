import type { LiveUnit } from '../../../../src/linux/unit-control';
import { refusedTemplate, templateBefore } from '../../../../src/linux/unit-template-disable';
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
    expect(refusedTemplate({ spec: { ...spec, unmask }, owned: own }, before, stack)).toBe(refused);
  });

  test('reads no state for its disable in the plan, which then says nothing of it', () => {
    const before = live({ restartOn: undefined });
    expect(templateBefore(spec, [{ sort: 'unit', spec }], before, 's')).toBeUndefined();
    expect(templateBefore(spec, [{ sort: 'unit', spec, owned: owned(true) }], before, 's')).toBe(before);
    expect(templateBefore(spec, [], undefined, 's')).toBeUndefined();
  });
});
