import { instanceOf } from '../../../../src/linux/unit-name';
import { enabledOf, enablementOf, isUnitRunning, parseShow, settleOf } from '../../../../src/linux/unit-state';

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
    const status = parseShow(
      'Id=x.service\nLoadState=not-found\nActiveState=inactive\nSubState=dead\nUnitFileState=\nNeedDaemonReload=no\n',
    );
    expect(status).toEqual({
      loadState: 'not-found',
      activeState: 'inactive',
      subState: 'dead',
      unitFileState: '',
      needDaemonReload: false,
    });
  });

  test('NeedDaemonReload=yes is read as true', () => {
    expect(parseShow('LoadState=loaded\nNeedDaemonReload=yes').needDaemonReload).toBe(true);
  });

  // Measured on systemd 252: a path holding a space, a quote, a backslash or a control character is printed
  // double-quoted, `\\`, `\"` and control characters escaped; a plain one bare. Split on spaces, each read as two.
  test('reads DropInPaths as systemd quotes them: a name with a space, tab, quote or backslash is one path', () => {
    const d = '/etc/systemd/system/m.service.d';
    const shown =
      `DropInPaths=${d}/a.conf "${d}/b` +
      `\\\\x20s.conf" "${d}/my override.conf" "${d}/q'u\\"o.conf" "${d}/t\\tb.conf"`;
    expect(parseShow(`LoadState=loaded\n${shown}\n`).dropInPaths).toEqual([
      `${d}/a.conf`,
      `${d}/b\\x20s.conf`,
      `${d}/my override.conf`,
      `${d}/q'u"o.conf`,
      `${d}/t\tb.conf`,
    ]);
  });

  test('refuses DropInPaths it cannot read as systemd quotes them, rather than guess the files', () => {
    expect(() => parseShow('LoadState=loaded\nDropInPaths=/etc/a.d/my override.conf\n')).toThrow(
      /DropInPaths=\/etc\/a.d\/my override.conf.*refusing to guess/,
    );
    expect(() => parseShow('LoadState=loaded\nDropInPaths="/etc/a.d/x.conf\n')).toThrow(/refusing to guess/);
  });

  // systemd's cescape_char prints a control character without a letter escape as octal (measured, systemd 252:
  // `a\001b.conf` and `x\177y.conf`, each loaded).
  test('reads an octal escape in a quoted DropInPaths word as its byte', () => {
    expect(parseShow('DropInPaths="/etc/a.d/c\\001 d.conf"\n').dropInPaths).toEqual(['/etc/a.d/c\x01 d.conf']);
    expect(parseShow('DropInPaths="/etc/a.d/x\\177y.conf"\n').dropInPaths).toEqual(['/etc/a.d/x\x7fy.conf']);
  });

  // Regression (measured, systemd 252): a drop-in named `a<LF>b.conf` is loaded, `show` prints it `"…/a\nb.conf"`,
  // and the read's list of files, one a line, read it as two that are no file: the plan said in sync while the unit
  // ran without it. The read now refuses it, naming the file.
  test('refuses a DropInPaths word whose name holds a newline, naming it', () => {
    expect(() => parseShow('LoadState=loaded\nDropInPaths="/etc/a.d/a\\nb.conf" /etc/a.d/c.conf\n')).toThrow(
      /systemd loaded "\/etc\/a\.d\/a\\nb\.conf", whose name holds a newline, .*\(rename that file\)$/,
    );
  });
});

describe('enablementOf and enabledOf', () => {
  test.each([
    ['enabled', 'enabled', true],
    ['alias', 'enabled', true],
    // Regression: links under /run alone (enable --runtime) go at reboot, and read enabled.
    ['enabled-runtime', 'runtime', false],
    ['disabled', 'disabled', false],
    ['masked', undefined, undefined],
    ['linked', 'disabled', false],
    ['linked-runtime', 'disabled', false],
    ['static', undefined, undefined],
    ['indirect', undefined, undefined],
    ['generated', undefined, undefined],
    ['transient', undefined, undefined],
    ['', undefined, undefined],
  ])('UnitFileState=%s reads as %s, enabled for good %s', (state, enablement, enabled) => {
    expect(enablementOf(state)).toBe(enablement);
    expect(enabledOf(state)).toBe(enabled);
  });
});

describe('settleOf, the verdict of the wait after start, restart or stop', () => {
  const status = (activeState: string, subState: string, job?: string) => ({
    loadState: 'loaded',
    activeState,
    subState,
    unitFileState: 'static',
    needDaemonReload: false,
    ...(job ? { job } : {}),
  });
  test.each<[string, string, string | undefined, 'active' | 'inactive', string]>([
    ['active', 'running', undefined, 'active', 'settled'],
    ['active', 'exited', undefined, 'active', 'settled'],
    // a Type=notify unit that has not notified yet still holds its start job
    ['activating', 'start', '75', 'active', 'waiting'],
    ['inactive', 'dead', '75', 'active', 'waiting'],
    ['activating', 'start', undefined, 'active', 'waiting'],
    ['failed', 'failed', undefined, 'active', 'failed'],
    // a oneshot without RemainAfterExit, or a failed condition: the job is done and it is not active
    ['inactive', 'dead', undefined, 'active', 'failed'],
    ['activating', 'auto-restart', '80', 'active', 'failed'],
    ['inactive', 'dead', undefined, 'inactive', 'settled'],
    ['failed', 'failed', undefined, 'inactive', 'settled'],
    ['deactivating', 'stop-sigterm', '81', 'inactive', 'waiting'],
    ['active', 'running', '81', 'inactive', 'waiting'],
  ])('%s/%s with job %s, waiting for %s: %s', (active, sub, job, want, expected) => {
    expect(settleOf(status(active, sub, job), want)).toBe(expected);
  });
});

describe('instanceOf', () => {
  test.each([
    ['probe@tty9.service', 'probe@.service'],
    ['backup@daily.timer', 'backup@.timer'],
    ['foo@bar@baz.service', 'foo@.service'],
    ['plain.service', undefined],
    ['probe@.service', undefined],
  ])('%s is an instance of %s', (name, template) => {
    expect(instanceOf(name)).toBe(template);
  });
});
