/**
 * The running instances a template's file or drop-in restarts that the stack does not declare: they ran on without
 * its content while the plan said in sync (contract: systemd-template-drop-in-runs.test.ts,
 * systemd-template-runs.test.ts).
 */
import { sha256Hex } from '../../../../src/core/canonical';
import type { LiveUnit } from '../../../../src/linux/unit-control';
import { planJobs } from '../../../../src/linux/unit-batch';
import {
  instanceGlob,
  keptByRemoval,
  removalRestarts,
  removalRestartWords,
  runsToRestart,
  templateRunsWords,
  withTemplateRuns,
} from '../../../../src/linux/template-runs';
import { statsByPath } from '../../../../src/linux/unit-loaded';
import { spec as unitFixture } from './unit-fixtures';

const CONTENT = '[Service]\nEnvironment=A=1\n';
const FILE = '/etc/systemd/system/t@.service.d/10-a.conf';
const base: LiveUnit = {
  status: {
    loadState: 'loaded',
    activeState: 'inactive',
    subState: 'dead',
    unitFileState: '',
    needDaemonReload: false,
  },
  fileSha256: sha256Hex(CONTENT),
  restartOn: undefined,
};
const runs = [
  { name: 't@x.service', startedAt: 100 },
  { name: 't@y.service', startedAt: 300 },
  { name: 't@z.service' },
];

describe("a template's drop-in", () => {
  test.each([
    ['written (absent)', { fileSha256: undefined }, ['t@x.service', 't@y.service', 't@z.service']],
    ['written (differs)', { fileSha256: 'other' }, ['t@x.service', 't@y.service', 't@z.service']],
    ['as declared, changed after x started', { fileChangedAt: 200 }, ['t@x.service']],
    ['as declared, changed before all started', { fileChangedAt: 50 }, []],
    ['as declared, its change not dated', {}, []],
  ])('%s restarts %p', (_, over, names) => {
    expect(runsToRestart(CONTENT, { ...base, templateRuns: runs, ...over })).toEqual(names);
  });

  test('names them in the plan, and nothing when none runs', () => {
    expect(templateRunsWords(CONTENT, { ...base, templateRuns: runs.slice(0, 1), fileChangedAt: 200 })).toBe(
      't@x.service, which this stack does not declare, runs without its content: the apply restarts it with it',
    );
    expect(templateRunsWords(CONTENT, { ...base, templateRuns: [] })).toBeUndefined();
  });

  test('reads the running instances of its template that the entries do not declare', () => {
    const shown = [
      'Id=t@x.service\nLoadState=loaded\nActiveState=active\nSubState=running\nExecMainStartTimestamp=' +
        'Thu 2026-12-03 10:00:00.500000 UTC',
      'Id=t@a.service\nLoadState=loaded\nActiveState=active\nSubState=running',
      'Id=t@s.service\nLoadState=loaded\nActiveState=inactive\nSubState=dead',
      'Id=u@x.service\nLoadState=loaded\nActiveState=active\nSubState=running',
    ].join('\n\n');
    const entries = [{ unit: 't@.service', file: FILE, declared: { as: 'drop-in' as const } }, { unit: 't@a.service' }];
    const [dropIn, instance] = withTemplateRuns(entries, [base, base], shown, statsByPath(`250.5 1:2 ${FILE}`));
    expect(dropIn?.templateRuns?.map((run) => run.name)).toEqual(['t@x.service']);
    expect(dropIn?.templateRuns?.[0]?.startedAt).toBeCloseTo(Date.UTC(2026, 11, 3, 10) / 1000 + 0.5);
    expect(dropIn?.fileChangedAt).toBe(250.5);
    expect(instance).toBe(base);
  });

  // A name the host prints goes into the root helper's request, a step a line and its words split on spaces.
  test('reads no running instance whose name is no unit name', () => {
    const shown = ['t@a b.service', 't@x.service c.service', 't@\u0007.service', 't@ok.service']
      .map((id) => `Id=${id}\nLoadState=loaded\nActiveState=active\nSubState=running`)
      .join('\n\n');
    const entries = [{ unit: 't@.service', file: FILE, declared: { as: 'drop-in' as const } }];
    const [dropIn] = withTemplateRuns(entries, [base], shown, statsByPath(''));
    expect(dropIn?.templateRuns?.map((run) => run.name)).toEqual(['t@ok.service']);
  });

  test('shows its instances by a glob that escapes its own glob characters', () => {
    expect(instanceGlob('t@.service')).toBe("'t@*.service'");
    expect(instanceGlob('a[1]@.service')).toBe("'a\\[1]@*.service'");
  });

  test('restarts none for an object with no file of its own (an instance)', () => {
    expect(runsToRestart(undefined, { ...base, templateRuns: runs })).toEqual([]);
  });

  test("joins the restarts of a template file's undeclared instances to the apply", () => {
    const spec = { ...unitFixture, name: 't@.service', content: CONTENT, enabled: false, started: false };
    const before = { ...base, fileSha256: 'old', templateRuns: runs.slice(0, 1) };
    const change = { sort: 'unit' as const, spec };
    expect(planJobs([{ name: 't', change, before, loaded: before, wrote: true }])).toEqual([
      { unit: 't@x.service', verb: 'restart', want: 'active', seconds: 90, owners: ['t'] },
    ]);
  });

  test('joins the restarts of those instances to the apply, once each', () => {
    const spec = { unit: 't@.service', name: '10-a', directory: '/etc/systemd/system', content: CONTENT };
    const before = { ...base, fileSha256: undefined, templateRuns: runs.slice(0, 1) };
    const change = { sort: 'drop-in' as const, spec: { ...spec, startTimeoutSeconds: 40 } };
    expect(planJobs([{ name: 'd', change, before, loaded: before, wrote: true }])).toEqual([
      { unit: 't@x.service', verb: 'restart', want: 'active', seconds: 40, owners: ['d'] },
    ]);
  });
});

// Regression: a template's drop-in destroyed said the template "keeps its current settings" (a template never runs)
// and left an instance started by hand on the removed content, which no plan named.
describe("a template's drop-in destroyed", () => {
  const runs = { ...base, templateRuns: [{ name: 't@x.service' }, { name: 't@a.service' }, { name: 't@b.service' }] };
  const ofStacks = (name: string) => name === 't@a.service';

  test("restarts the running instances no stack records, never a stack's", () => {
    expect(removalRestarts(runs, ofStacks)).toEqual(['t@b.service', 't@x.service']);
    expect(removalRestarts(base, ofStacks)).toEqual([]);
  });

  test.each([
    ['a plain unit', 'u.service', base, [], 'u.service keeps its current settings until it restarts'],
    ['a template with no instance running', 't@.service', base, [], 'no instance of t@.service runs'],
    [
      'a template whose instances a stack declares and one started by hand',
      't@.service',
      { ...base, templateRuns: [{ name: 't@x.service' }, { name: 't@a.service' }] },
      ['t@x.service'],
      'restarted t@x.service without it (no stack declares it); t@a.service keeps its content until it restarts ' +
        '(a stack declares it: its plan says the restart is pending)',
    ],
  ])('says what runs on: %s', (_, unit, live, restarted, words) => {
    expect(keptByRemoval(unit, live, restarted)).toBe(words);
  });

  // The plan that removes it names them, as the destroy restarts them.
  test.each([
    [[], undefined],
    [
      ['t@x.service'],
      'P, if this plan destroys it: its destroy restarts t@x.service without it (running, and no ' +
        'stack declares it)',
    ],
    [
      ['t@b.service', 't@x.service'],
      'P, if this plan destroys it: its destroy restarts t@b.service, t@x.service ' +
        'without it (running, and no stack declares them)',
    ],
  ])('is named in the plan that removes it: %j', (restarts, words) => {
    expect(removalRestartWords('P', restarts)).toBe(words);
  });
});
