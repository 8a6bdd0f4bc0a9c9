import { enabledOf, isUnitRunning, parseShow } from '../../../../src/linux/unit-state';

describe('isUnitRunning, the one predicate read and apply share', () => {
  test.each([
    ['active', 'running', true, true],
    ['active', 'running', false, true],
    ['active', 'exited', false, true],
    ['reloading', 'reload', false, true],
    ['activating', 'start', true, true],
    // a timer-driven oneshot mid-run is not drift for started: false (seed 002's first bug)
    ['activating', 'start', false, false],
    ['activating', 'start-pre', false, false],
    // a crash loop is running whatever started says (seed 002's second bug)
    ['activating', 'auto-restart', false, true],
    ['activating', 'auto-restart-queued', false, true],
    ['activating', 'auto-restart', true, true],
    ['inactive', 'dead', true, false],
    ['failed', 'failed', false, false],
    ['deactivating', 'stop-sigterm', true, false],
  ])('%s/%s with started=%s counts as running: %s', (active, sub, started, expected) => {
    expect(isUnitRunning(active, sub, started)).toBe(expected);
  });
});

describe('parseShow', () => {
  test('reads the properties from stdout, not from an exit code', () => {
    const status = parseShow('Id=x.service\nLoadState=not-found\nActiveState=inactive\nSubState=dead\nUnitFileState=\nNeedDaemonReload=no\n');
    expect(status).toEqual({ loadState: 'not-found', activeState: 'inactive', subState: 'dead', unitFileState: '', needDaemonReload: false });
  });

  test('NeedDaemonReload=yes is read as true', () => {
    expect(parseShow('LoadState=loaded\nNeedDaemonReload=yes').needDaemonReload).toBe(true);
  });
});

describe('enabledOf', () => {
  test.each([
    ['enabled', true],
    ['enabled-runtime', true],
    ['disabled', false],
    ['masked', false],
    ['linked', false],
    ['static', undefined],
    ['indirect', undefined],
    ['generated', undefined],
    ['transient', undefined],
    ['', undefined],
  ])('UnitFileState=%s reads as enabled %s', (state, expected) => {
    expect(enabledOf(state)).toBe(expected);
  });
});
