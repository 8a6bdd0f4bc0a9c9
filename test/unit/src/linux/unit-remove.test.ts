/**
 * What a unit's destroy and undo remove, run by the real shell on a scratch tree: every link to the
 * unit's file goes whatever its name or form (relative, dangling), a mask and other units' links
 * stay, and what cannot be removed is named (issue 16 item 3a).
 */
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { destroyScript, parseRemoval, type Removal, removalOf, removeLines } from '../../../../src/linux/unit-remove';

const exists = (path: string) => {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
};

describe('what goes with a unit', () => {
  test('a unit: its file, its record and intent, links to its file, and where a mask of it would be', () => {
    expect(removalOf({ name: 'a.service', directory: '/usr/local/lib/systemd/system' }, true)).toEqual({
      name: 'a.service',
      file: '/usr/local/lib/systemd/system/a.service',
      record: '/var/lib/cdktf-homelab/restart-on/a.service',
      intent: '/var/lib/cdktf-homelab/intents/a.service',
      linksTo: '/usr/local/lib/systemd/system/a.service',
      masks: [
        '/usr/local/lib/systemd/system/a.service',
        '/etc/systemd/system/a.service',
        '/run/systemd/system/a.service',
      ],
    });
  });

  test("an instance: no file, and only its own links to its template's file", () => {
    expect(removalOf({ name: 'p@x.service', directory: '/etc/systemd/system' }, false)).toMatchObject({
      linksTo: '/etc/systemd/system/p@.service',
      linkName: 'p@x.service',
    });
    expect(removalOf({ name: 'p@x.service', directory: '/etc/systemd/system' }, false)).not.toHaveProperty('file');
  });

  test('a name with a backslash is matched literally by find, never as a pattern', () => {
    const script = removeLines(removalOf({ name: 'a\\x2db.service', directory: '/etc/systemd/system' }, true));
    expect(script.join('\n')).toContain(`-lname '*/a\\\\x2db.service'`);
  });
});

describe('the destroy script', () => {
  const unit = removalOf({ name: 'a.service', directory: '/etc/systemd/system' }, true);

  test('disables the unit before its file goes only when asked, and asks a reload while systemd has it loaded', () => {
    expect(destroyScript(unit, true).split('\n')[0]).toBe("systemctl disable --no-reload -- 'a.service' || exit 1");
    expect(destroyScript(unit, false)).not.toContain('disable');
    expect(destroyScript(unit, false)).toContain(
      `[ "$(systemctl show -p LoadState --value -- 'a.service' 2>/dev/null)" = not-found ] || echo reload`,
    );
    // The run's destroys share their reloads (HostShell.reload): the script runs none itself.
    expect(destroyScript(unit, true)).not.toContain('daemon-reload');
  });

  test('an instance asks a reload only when it was disabled; a template is never reset-failed', () => {
    const instance = removalOf({ name: 'p@x.service', directory: '/etc/systemd/system' }, false);
    expect(destroyScript(instance, false)).not.toContain('reload');
    expect(destroyScript(instance, true)).toContain('\necho reload\n');
    const template = removalOf({ name: 'p@.service', directory: '/etc/systemd/system' }, true);
    expect(destroyScript(template, false)).not.toContain('reset-failed');
  });

  test('its report splits into what was removed, the masks kept, what is left and the load state', () => {
    const report = parseRemoval(
      'removed /u/a.service\nkept /etc/systemd/system/a.service\n' +
        "left /w/a.service: rm: cannot remove '/w/a.service': Read-only file system\nreload\nload masked\n",
    );
    expect(report).toEqual({
      removed: ['/u/a.service'],
      masks: ['/etc/systemd/system/a.service'],
      left: ["/w/a.service: rm: cannot remove '/w/a.service': Read-only file system"],
      loadState: 'masked',
      reload: true,
    });
  });
});

describe('the removal, run by sh on a scratch tree', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'unit-remove-'));
    for (const dir of ['units', 'links/multi-user.target.wants', 'links/timers.target.wants', 'records'])
      mkdirSync(join(root, dir), { recursive: true });
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  const removal = (name: string, over: Partial<Removal> = {}): Removal => ({
    name,
    file: join(root, 'units', name),
    record: join(root, 'records', name),
    intent: join(root, 'records', `${name}.intent`),
    linksTo: join(root, 'units', name),
    masks: [join(root, 'units', name), join(root, 'links', name)],
    ...over,
  });
  const run = (of: Removal) =>
    parseRemoval(
      execFileSync('sh', ['-s'], { input: `${removeLines(of, join(root, 'links')).join('\n')}\n`, encoding: 'utf8' }),
    );

  test('every link to the file goes, absolute, relative or dangling; links to other files stay', () => {
    const file = join(root, 'units/a.service');
    writeFileSync(file, '[Service]\n');
    writeFileSync(join(root, 'records/a.service'), 'digest\n');
    symlinkSync(file, join(root, 'links/multi-user.target.wants/a.service'));
    symlinkSync('../../units/a.service', join(root, 'links/timers.target.wants/a.service'));
    symlinkSync(file, join(root, 'links/alias-of-a.service'));
    symlinkSync(join(root, 'units/b.service'), join(root, 'links/multi-user.target.wants/b.service'));
    symlinkSync('/lib/systemd/system/a.service', join(root, 'links/multi-user.target.wants/a.service.bak'));
    const report = run(removal('a.service'));
    expect([...report.removed].sort()).toEqual(
      [
        file,
        join(root, 'records/a.service'),
        join(root, 'links/multi-user.target.wants/a.service'),
        join(root, 'links/timers.target.wants/a.service'),
        join(root, 'links/alias-of-a.service'),
      ].sort(),
    );
    expect(report.left).toEqual([]);
    expect(exists(join(root, 'links/multi-user.target.wants/b.service'))).toBe(true);
    expect(exists(join(root, 'links/multi-user.target.wants/a.service.bak'))).toBe(true);
  });

  test('a /dev/null mask stays, in the admin directory or in place of the file, and is reported', () => {
    symlinkSync('/dev/null', join(root, 'units/a.service'));
    symlinkSync('/dev/null', join(root, 'links/a.service'));
    const report = run(removal('a.service'));
    expect(report).toMatchObject({ removed: [], left: [] });
    expect(report.masks).toEqual([join(root, 'units/a.service'), join(root, 'links/a.service')]);
    expect(exists(join(root, 'links/a.service'))).toBe(true);
  });

  test("an instance's own links go; its template's other instances keep theirs", () => {
    const template = join(root, 'units/p@.service');
    writeFileSync(template, '[Service]\n');
    symlinkSync(template, join(root, 'links/multi-user.target.wants/p@x.service'));
    symlinkSync(template, join(root, 'links/multi-user.target.wants/p@y.service'));
    const report = run(removal('p@x.service', { file: undefined, linksTo: template, linkName: 'p@x.service' }));
    expect(report.removed).toEqual([join(root, 'links/multi-user.target.wants/p@x.service')]);
    expect(exists(template)).toBe(true);
    expect(exists(join(root, 'links/multi-user.target.wants/p@y.service'))).toBe(true);
  });

  test('a link left by a unit whose file is already gone is removed too', () => {
    symlinkSync(join(root, 'units/gone.service'), join(root, 'links/multi-user.target.wants/gone.service'));
    expect(run(removal('gone.service')).removed).toEqual([join(root, 'links/multi-user.target.wants/gone.service')]);
  });

  test('what cannot be removed is named as left, with why', () => {
    mkdirSync(join(root, 'records/a.service/inside'), { recursive: true });
    expect(run(removal('a.service')).left).toEqual([
      expect.stringMatching(/records\/a.service: rm: cannot remove .*Is a directory$/),
    ]);
  });
});
