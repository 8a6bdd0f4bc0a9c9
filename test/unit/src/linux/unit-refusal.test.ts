import { batchFilesOf } from '../../../../src/linux/unit-batch';
import type { LiveUnit } from '../../../../src/linux/unit-control';
import { convergesAsRead, refusedBefore, unitRefusalOf } from '../../../../src/linux/unit-refusal';
import { readingOf } from '../../../../handlers/linux/systemd-unit';
import { DIR, service, unit } from '../../handlers/linux/unit-specs';

const live = (over: Partial<LiveUnit> = {}, unitFileState = 'enabled'): LiveUnit => ({
  status: { loadState: 'loaded', activeState: 'inactive', subState: 'dead', unitFileState, needDaemonReload: false },
  fileSha256: 'f',
  restartOn: 'r',
  ...over,
});
const spec = unit('p@.service', undefined, { enabled: false, started: false });
const shadowed = { declared: { as: 'unit', path: '/etc/systemd/system/p@.service' } } as const;
const owned = (adopt: boolean, takeOver = false) => ({ adopt, takeOver });
const none = batchFilesOf([]);
const withTemplate = batchFilesOf([{ sort: 'unit', spec }]);

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
    const change = { sort: 'unit', spec: { ...spec, unmask }, owned: own } as const;
    expect(refusedBefore(change, before, none, stack)).toBe(refused);
  });
});

// Regression: an instance the apply refuses, which its template's disable unlinks, was said to be enabled again; the
// plan's own list of the apply's refusals missed one enable cannot link (measured).
describe('an instance the apply refuses before any change', () => {
  const instance = { ...unit('p@b.service', undefined, { started: false }), template: 'p@.service' };
  const enabled = live({ restartOn: undefined, fileSha256: undefined });
  const installLess = batchFilesOf([{ sort: 'unit', spec: { ...spec, content: '[Service]\nExecStart=/bin/true\n' } }]);
  const reset = new Map([['/etc/systemd/system/p@b.service.d/x.conf', ['WantedBy=']]]);
  const dropIns = { dropInPaths: ['/etc/systemd/system/p@b.service.d/x.conf'] };
  const resetByHand = live({
    fileSha256: undefined,
    status: { ...live().status, ...dropIns },
    links: { etc: [], run: [], aliases: [], dropIns: reset },
  });
  test.each([
    ['its own', live({ fileSha256: undefined }), undefined, none, false],
    ['its own, its template with [Install]', live(), undefined, withTemplate, false],
    ['shadowed by a file of its name', live({ overridden: shadowed }), undefined, none, true],
    [
      'with an alias its [Install] does not make',
      live({ links: { etc: [], run: [], aliases: ['/a'] } }),
      undefined,
      none,
      true,
    ],
    ['not created by this stack', enabled, owned(false), none, true],
    ['not created by this stack, adopt: true', enabled, owned(true), none, false],
    ["that enable cannot link: its template's [Install] names nothing", live(), undefined, installLess, true],
    ['that enable cannot link: a drop-in by hand empties its [Install]', resetByHand, undefined, withTemplate, true],
  ])('%s', (_, before, own, files, refused) => {
    expect(refusedBefore({ sort: 'instance', spec: instance, owned: own }, before, files, 's')).toBe(refused);
  });

  test('the apply refuses it in the same words the plan judged it by', () => {
    const change = { sort: 'instance', spec: instance } as const;
    expect(unitRefusalOf(change, live(), installLess)).toMatchObject({
      subject: 'p@b.service',
      verdict: 'is declared enabled',
      detail: expect.stringContaining('nothing was changed'),
    });
    expect(unitRefusalOf({ sort: 'unit', spec: unit('u.service', service()) }, live(), none)).toBeUndefined();
  });
});

// The drift warning promised convergence unless a line held one of a list of words: each refusal now flags its reading.
describe('whether the apply converges it as read, by its own judgement', () => {
  const enabledUnit = unit('u.service', service());
  const refusedEnable = {
    etc: ['multi-user.target.wants/u.service'],
    run: [],
    unknown: 'Alias=%m.service: systemctl enable refuses it (no /etc/machine-id)',
    enableRefused: true,
  } as const;
  const dropIn = { unit: 'u.service', name: '10-a', directory: DIR, content: '', startTimeoutSeconds: 9 };
  const overridden = { declared: { as: 'drop-in', path: `${DIR}/u.service.d/10-a.conf` }, by: '/run/x' } as const;
  test.each([
    ['a unit that differs', { sort: 'unit', spec: enabledUnit }, live({ fileSha256: 'old' }), true],
    ['a masked unit, unmask: false', { sort: 'unit', spec: enabledUnit }, live({}, 'masked'), false],
    ['a masked unit, unmask: true', { sort: 'unit', spec: { ...enabledUnit, unmask: true } }, live({}, 'masked'), true],
    [
      'a unit shadowed by a file of its name',
      { sort: 'unit', spec: enabledUnit },
      live({ overridden: shadowed }),
      false,
    ],
    ['a unit whose enable systemd refuses', { sort: 'unit', spec: enabledUnit }, live({ links: refusedEnable }), false],
    [
      'a unit whose links the read cannot compare',
      { sort: 'unit', spec: enabledUnit },
      live({ links: { ...refusedEnable, enableRefused: undefined } }),
      true,
    ],
    ['a drop-in', { sort: 'drop-in', spec: dropIn }, live({ fileSha256: undefined }), true],
    ['a drop-in another file of its name overrides', { sort: 'drop-in', spec: dropIn }, live({ overridden }), false],
  ] as const)('%s', (_, change, before, converges) => {
    expect(convergesAsRead(change, before, none)).toBe(converges);
  });

  test("the plan's reading carries the judgement, whatever its line's words", () => {
    const units = new Map([['u.service', live({ links: refusedEnable })]]);
    const reading = readingOf({ sort: 'unit', spec: enabledUnit }, { host: 'h', units }, undefined);
    expect(reading.summary).toMatch(/cannot compare links: .*systemctl enable refuses it/);
    expect(reading.converges).toBe(false);
  });
});
