/**
 * A template's drop-in judged against the instances read beside it (template-drop-ins.ts), as a truth table over
 * their DropInPaths, and the batch's objects each read brings along. Regression: `show` refuses a template's name, so
 * a same-name drop-in ranked higher, or in an instance's own `.d/`, ran for the instance while all read in sync.
 */
import type { DropInSpec } from '../../../../src/linux/systemd-drop-in';
import {
  instancesToJudge,
  type JudgedEntry,
  templateDropInsOf,
  templateDropInsToWrite,
  withReplacedForInstances,
} from '../../../../src/linux/template-drop-ins';
import { sha256Hex } from '../../../../src/core/canonical';
import type { UnitChange } from '../../../../src/linux/unit-batch';
import type { FileStat } from '../../../../src/linux/file-stat';
import { overriddenPart } from '../../../../src/linux/unit-loaded';
import type { UnitStatus } from '../../../../src/linux/unit-state';
import { live } from './unit-fixtures';

const DECLARED = '/etc/systemd/system/p@.service.d/10-v.conf';
const CONTROL = '/etc/systemd/system.control/p@.service.d/10-v.conf';
const OWN = '/etc/systemd/system/p@a.service.d/10-v.conf';

const stats = (...paths: string[]): Map<string, FileStat> =>
  new Map(paths.map((path, index) => [path, { time: 0, file: `1:${index}` }]));

const dropInEntry: JudgedEntry = { unit: 'p@.service', declared: { as: 'drop-in', path: DECLARED } };
const instanceEntry: JudgedEntry = {
  unit: 'p@a.service',
  declared: { as: 'unit', path: '/etc/systemd/system/p@.service' },
};
const template = live();

/** The drop-in's and the instance's `overridden`, the instance read with `over`, the files `onDisk` there. */
const judged = (over: Partial<UnitStatus>, onDisk: string[], instance: JudgedEntry = instanceEntry) => {
  const read = withReplacedForInstances([dropInEntry, instance], [template, live(over)], stats(...onDisk));
  return read.map((unit) => unit.overridden);
};

describe('withReplacedForInstances', () => {
  test.each<[string, Partial<UnitStatus>, string[], string | undefined | null]>([
    ['listed among the instance drop-ins is not replaced', { dropInPaths: [DECLARED] }, [DECLARED], null],
    [
      'left out for a same-name one in system.control is replaced by it',
      { dropInPaths: [CONTROL] },
      [DECLARED, CONTROL],
      CONTROL,
    ],
    ["left out for one in the instance's own .d/ is replaced by it", { dropInPaths: [OWN] }, [DECLARED, OWN], OWN],
    [
      'left out with none of its name listed (a /dev/null link) is replaced',
      { dropInPaths: [] },
      [DECLARED],
      undefined,
    ],
    ['not on disk yet is not judged (the apply writes it)', { dropInPaths: [OWN] }, [OWN], null],
    [
      'while the instance awaits a reload is not judged',
      { dropInPaths: [OWN], needDaemonReload: true },
      [DECLARED, OWN],
      null,
    ],
    ['of an instance not loaded is not judged', { loadState: 'not-found' }, [DECLARED], null],
  ])("a template's drop-in %s, for the drop-in and the instance alike", (_, over, onDisk, by) => {
    const [dropIn, instance] = judged(over, onDisk);
    if (by === null) return expect([dropIn, instance]).toEqual([undefined, undefined]);
    const declared = { as: 'drop-in', path: DECLARED };
    const want = by === undefined ? { declared, instance: 'p@a.service' } : { declared, by, instance: 'p@a.service' };
    expect([dropIn, instance]).toEqual([want, want]);
  });

  test('an instance of another template does not judge the drop-in', () => {
    expect(judged({ dropInPaths: [] }, [DECLARED], { unit: 'q@a.service' })).toEqual([undefined, undefined]);
  });

  test("an instance whose template's file is shadowed keeps that, and the drop-in is still replaced", () => {
    const shadowed = {
      declared: instanceEntry.declared ?? { as: 'unit', path: '' },
      by: '/etc/systemd/system/p@a.service',
    };
    const read = withReplacedForInstances(
      [dropInEntry, instanceEntry],
      [template, live({ dropInPaths: [OWN] }, { overridden: shadowed })],
      stats(DECLARED, OWN),
    );
    expect(read[1]?.overridden).toBe(shadowed);
    expect(read[0]?.overridden?.by).toBe(OWN);
  });

  test('a drop-in replaced for two instances names the first', () => {
    const b: JudgedEntry = { unit: 'p@b.service' };
    const read = withReplacedForInstances(
      [dropInEntry, instanceEntry, b],
      [template, live({ dropInPaths: [OWN] }), live({ dropInPaths: [CONTROL] })],
      stats(DECLARED, OWN, CONTROL),
    );
    expect(read.map((unit) => unit.overridden?.by)).toEqual([OWN, OWN, CONTROL]);
  });
});

describe('what the plan says', () => {
  test('the file that replaces it, the instance it does so for, and what to do', () => {
    const [dropIn] = judged({ dropInPaths: [CONTROL] }, [DECLARED, CONTROL]);
    expect(overriddenPart(dropIn)).toBe(
      `overridden: systemd loads ${CONTROL} for p@a.service instead of ${DECLARED}, a file the stack does not ` +
        'manage: remove it, or declare directory /etc/systemd/system.control; the apply refuses it until then',
    );
    const [own] = judged({ dropInPaths: [OWN] }, [DECLARED, OWN]);
    expect(overriddenPart(own)).toMatch(/ for p@a\.service instead of .*: remove it; the apply refuses it until then$/);
    const [masked] = judged({ dropInPaths: [] }, [DECLARED]);
    expect(overriddenPart(masked)).toMatch(/^overridden: systemd does not load \S+ for p@a\.service: /);
  });
});

const dropInSpec = (unit: string): DropInSpec => ({
  unit,
  name: '10-v',
  directory: '/etc/systemd/system',
  content: '',
  startTimeoutSeconds: 90,
});
const instance = (name: string, template: string) =>
  ({ sort: 'instance', spec: { name, template } }) as unknown as UnitChange;

describe("what each kind's read brings along from the batch", () => {
  const batch: UnitChange[] = [
    instance('p@a.service', 'p@.service'),
    instance('p@b.service', 'p@.service'),
    instance('q@a.service', 'q@.service'),
    { sort: 'drop-in', spec: dropInSpec('p@.service') },
    { sort: 'drop-in', spec: dropInSpec('p@a.service') },
  ];

  test("a template's drop-in brings the batch's instances of that template, once; a unit's drop-in none", () => {
    const specs = [dropInSpec('p@.service'), dropInSpec('p@.service'), dropInSpec('x.service')];
    expect(instancesToJudge(specs, batch)).toEqual(['p@a.service', 'p@b.service']);
    expect(instancesToJudge([dropInSpec('p@a.service')], batch)).toEqual([]);
  });

  test("an instance brings the batch's drop-ins of its template, not those of itself, which its read lists", () => {
    expect(templateDropInsOf([instance('p@a.service', 'p@.service')], batch)).toEqual([dropInSpec('p@.service')]);
    expect(templateDropInsOf([instance('q@a.service', 'q@.service')], batch)).toEqual([]);
  });
});

// test/contract/linux/systemd-template-drop-in-restart.test.ts: one apply did not converge.
test("a running instance whose template's batch drop-in the apply writes names it; one in place names nothing", () => {
  const content = '[Service]\nEnvironment=A=1\n';
  const dropIn = {
    unit: 'tw@.service',
    name: '10-a',
    directory: '/etc/systemd/system',
    content,
    startTimeoutSeconds: 9,
  };
  const path = '/etc/systemd/system/tw@.service.d/10-a.conf';
  const batch = [{ sort: 'drop-in', spec: dropIn } as const];
  const instance = { template: 'tw@.service', started: true };
  const running = live({ activeState: 'active', subState: 'running' });
  expect(templateDropInsToWrite(instance, running, batch, new Map())).toEqual([path]);
  const written = new Map([[path, live({}, { fileSha256: sha256Hex(content) })]]);
  expect(templateDropInsToWrite(instance, running, batch, written)).toEqual([]);
  expect(templateDropInsToWrite(instance, live(), batch, new Map())).toEqual([]);
  expect(templateDropInsToWrite({ ...instance, started: false }, running, batch, new Map())).toEqual([]);
  expect(templateDropInsToWrite({ ...instance, template: 'other@.service' }, running, batch, new Map())).toEqual([]);
});
