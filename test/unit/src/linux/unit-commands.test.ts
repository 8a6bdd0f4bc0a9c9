/**
 * The shell a unit handler sends: operands quoted, one `systemctl show` and one `sha256sum` per read,
 * writes installed only when their digest matches, and read output parsed by path and block, never by
 * position, so a missing file or unit cannot shift one unit's answer onto another.
 */
import { quote } from '../../../../src/linux/shell';
import { manyUnitsCommand, notQueued } from '../../../../src/linux/unit-commands';
import { readScript } from '../../../../src/linux/unit-read';
import { parseReadScript } from '../../../../src/linux/unit-read-answer';

describe('unit commands', () => {
  test('every operand is quoted, so a name cannot become a second command', () => {
    expect(quote("a'b")).toBe(`'a'\\''b'`);
    const script = readScript([{ unit: "x'y.service", file: "/etc/systemd/system/x'y.service" }]);
    expect(script).toContain(`-- 'x'\\''y.service'`);
    expect(script).toContain(`set -- '/etc/systemd/system/x'\\''y.service'`);
  });

  test('one systemctl show reads every unit but the templates; one list-unit-files all but the instances', () => {
    const script = readScript([
      { unit: 'a.service' },
      { unit: 'probe@.service' },
      { unit: 'probe@tty1.service' },
      { unit: 'b.timer' },
      { unit: 'a.service' },
    ]);
    // Once with microseconds, once without for a systemctl before 248, which refuses --timestamp (unit-read.ts).
    expect(script.match(/systemctl show/g)).toHaveLength(2);
    const names = "-- 'a.service' 'probe@tty1.service' 'b.timer' 'a.service'";
    const show = 'systemctl show -p \\S+';
    expect(script).toMatch(
      new RegExp(`${show} --timestamp=us\\+utc ${names} 2>/dev/null \\|\\| .*${show} ${names}\\)\n`),
    );
    expect(script.match(/systemctl list-unit-files/g)).toHaveLength(1);
    expect(script).toContain(
      "systemctl list-unit-files --no-legend --no-pager -- 'a.service' 'probe@.service' 'b.timer' 2>/dev/null\n",
    );
    expect(script).toContain("systemctl is-enabled -- 'probe@tty1.service' 2>/dev/null\n");
  });

  test("list-unit-files is given each name as a glob of itself alone: a unit name's backslash is escaped", () => {
    expect(readScript([{ unit: 'rh-g\\x2dx.service' }])).toContain("-- 'rh-g\\\\x2dx.service' 2>/dev/null");
  });

  test('with only instances declared, list-unit-files is not run (with no name it lists every unit file)', () => {
    expect(readScript([{ unit: 'probe@tty1.service' }])).not.toContain('list-unit-files');
    expect(readScript([{ unit: 'a.service' }])).not.toContain('is-enabled');
  });

  // systemd 252 keeps a loaded unit's UnitFileState until a daemon-reload: a wants link removed by hand read
  // `enabled` in `show` and `disabled` in `list-unit-files` (measured).
  test("a unit's enablement is list-unit-files' when it lists the unit, show's when it does not", () => {
    const units = [{ unit: 'a.service' }, { unit: 'i@x.service' }, { unit: 'gone.service' }];
    const show = 'LoadState=loaded\nActiveState=active\nSubState=running\nUnitFileState=enabled\nNeedDaemonReload=no\n';
    const stdout =
      `${show}\n${show}\n${show}@@cdktf-homelab:files\n@@cdktf-homelab:unit-files\n` +
      'a.service                 disabled enabled\n';
    expect(parseReadScript(stdout, units)?.map((unit) => unit.status.unitFileState)).toEqual([
      'disabled',
      'enabled',
      'enabled',
    ]);
  });

  // is-enabled stops at the first name it cannot answer (a template that is gone): the others keep show's state.
  test("instances' enablement is is-enabled's, in order, as far as it answered", () => {
    const units = [{ unit: 'i@x.service' }, { unit: 'j@y.service' }, { unit: 'i@x.service' }, { unit: 'k@z.service' }];
    const show = 'LoadState=loaded\nActiveState=active\nSubState=running\nUnitFileState=enabled\nNeedDaemonReload=no\n';
    const stdout =
      `${[show, show, show, show].join('\n')}@@cdktf-homelab:files\n` + '@@cdktf-homelab:instances\ndisabled\nmasked\n';
    expect(parseReadScript(stdout, units)?.map((unit) => unit.status.unitFileState)).toEqual([
      'disabled',
      'masked',
      'disabled',
      'enabled',
    ]);
  });

  test('with only templates declared, systemctl show is not run at all (it would show the manager)', () => {
    expect(readScript([{ unit: 'probe@.service' }])).not.toContain('systemctl show');
  });

  test("the read output splits into each unit's status, file digest and recorded restartOn, in order", () => {
    const units = [
      { unit: 'a.service', file: '/d/a.service' },
      { unit: 'p@.service', file: '/d/p@.service' },
      { unit: 'b.service', file: '/d/b.service' },
    ];
    const show = (state: string) =>
      `LoadState=loaded\nActiveState=${state}\nSubState=x\nUnitFileState=enabled\nNeedDaemonReload=no\n`;
    const stdout =
      `${show('active')}\n${show('inactive')}@@cdktf-homelab:files\n` +
      `${'ab'.repeat(32)}  /d/a.service\n${'cd'.repeat(32)}  /d/p@.service\n` +
      '@@cdktf-homelab:restart-on\n2 r2\n@@cdktf-homelab:unit-files\np@.service disabled enabled\n';
    const live = parseReadScript(stdout, units);
    expect(
      live?.map((unit) => [
        unit.status.activeState,
        unit.status.unitFileState,
        unit.fileSha256?.slice(0, 2),
        unit.restartOn,
      ]),
    ).toEqual([
      ['active', 'enabled', 'ab', undefined],
      ['inactive', 'disabled', 'cd', undefined],
      ['inactive', 'enabled', undefined, 'r2'],
    ]);
    expect(live?.[1]?.status.loadState).toBe('loaded');
  });

  test('file digests are matched by path, an escaped path (backslash, newline) included, never by position', () => {
    const units = [
      { unit: 'x\\x2dy.service', file: '/d/x\\x2dy.service' },
      { unit: 'gone.service', file: '/d/gone.service' },
      { unit: 'c.service', file: '/d/c.service' },
    ];
    const block = 'LoadState=loaded\nActiveState=active\nSubState=running\nUnitFileState=enabled\n';
    const stdout =
      `${block}\n${block}\n${block}@@cdktf-homelab:files\n` +
      `\\${'ab'.repeat(32)}  /d/x\\\\x2dy.service\n${'cd'.repeat(32)}  /d/c.service\n` +
      '@@cdktf-homelab:restart-on\n@@cdktf-homelab:templates\n';
    expect(parseReadScript(stdout, units)?.map((unit) => unit.fileSha256?.slice(0, 2))).toEqual([
      'ab',
      undefined,
      'cd',
    ]);
    expect(readScript(units)).toContain('sha256sum -- "$@"');
  });

  test('output without one status block per unit reads as no systemd, never as a shifted answer', () => {
    const units = [{ unit: 'a.service' }, { unit: 'b.service' }];
    expect(parseReadScript('LoadState=loaded\n@@cdktf-homelab:files\n', units)).toBeUndefined();
    expect(parseReadScript('@@cdktf-homelab:files\n@@cdktf-homelab:restart-on\n', units)).toBeUndefined();
  });

  test('a command over many units reads them on stdin, quoted, so no count of names meets the argument limit', () => {
    const names = Array.from({ length: 3000 }, (_, i) => `unit-with-a-long-name-number-${i}.service`);
    const { command, script } = manyUnitsCommand('show -p Id', names);
    expect(command).toBe('sh -s');
    expect(script.startsWith(`systemctl show -p Id -- 'unit-with-a-long-name-number-0.service' `)).toBe(true);
    expect(manyUnitsCommand('show', ["x'y.service"]).script).toBe(`systemctl show -- 'x'\\''y.service'\n`);
  });

  test("the units a start of many did not queue are told by systemctl's own lines, the others queued", () => {
    const stderr =
      'Failed to start bad1.service: Unit bad1.service has a bad unit file setting.\n' +
      "See system logs and 'systemctl status bad1.service' for details.\n" +
      'Failed to start missing.service: Unit missing.service not found.\n';
    expect([...notQueued('start', stderr).keys()]).toEqual(['bad1.service', 'missing.service']);
    expect(notQueued('start', stderr).get('missing.service')).toBe(
      'Failed to start missing.service: Unit missing.service not found.',
    );
    expect(notQueued('restart', stderr).size).toBe(0);
  });
});
