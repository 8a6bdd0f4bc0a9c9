/**
 * The files of a unit systemd has not loaded (src/linux/unloaded-drop-ins.ts). Regression: `show` lists no drop-in for
 * a unit whose file is not there yet (measured, systemd 252), so a drop-in made by hand that empties its [Install]
 * went unseen, and the apply wrote, enabled and started the unit before its read back failed. And `show` refuses a
 * template's name, so a copy of a template ranked higher read as no shadow while its instances loaded it.
 */
import { execFileSync } from 'node:child_process';
import { parseReadScript } from '../../../../src/linux/unit-read-answer';
import { dropInNames, UNLOADED_DROP_INS, withUnloadedDropIns } from '../../../../src/linux/unloaded-drop-ins';
import { needsReload } from '../../../../src/linux/unit-batch';
import { diffUnit, summarizeUnit } from '../../../../src/linux/unit-diff';
import { live, spec, status } from './unit-fixtures';

const read = (...paths: string[]) => new Map(paths.map((path) => [path, 'digest']));
const notFound = status({ loadState: 'not-found', unitFileState: '', dropInPaths: [] });

describe('withUnloadedDropIns', () => {
  test("lists a not-found unit's drop-ins and its template's among the files read, by file name", () => {
    const files = read(
      '/etc/systemd/system/a@x.service',
      '/run/systemd/system/a@x.service.d/zz.conf',
      '/etc/systemd/system/a@.service.d/10-b.conf',
      '/usr/lib/systemd/system/a@x.service.d/10-a.conf',
      '/etc/systemd/system/a@x.service.d/note.txt',
      '/etc/systemd/system/a-.service.d/p.conf',
      '/etc/systemd/system/b.service.d/x.conf',
      '/etc/systemd/system/a@x.service.d/sub/x.conf',
    );
    expect(withUnloadedDropIns('a@x.service', notFound, files).dropInPaths).toEqual([
      '/usr/lib/systemd/system/a@x.service.d/10-a.conf',
      '/etc/systemd/system/a@.service.d/10-b.conf',
      '/run/systemd/system/a@x.service.d/zz.conf',
    ]);
  });

  test('reads a file name found twice from the first directory systemd searches', () => {
    const files = read('/usr/lib/systemd/system/b.service.d/x.conf', '/etc/systemd/system/b.service.d/x.conf');
    expect(withUnloadedDropIns('b.service', notFound, files).dropInPaths).toEqual([
      '/etc/systemd/system/b.service.d/x.conf',
    ]);
  });

  test('leaves a loaded unit with no other drop-in on disk, one whose drop-ins systemd listed, and a template', () => {
    const files = read('/etc/systemd/system/b.service.d/x.conf', '/etc/systemd/system/t@.service.d/x.conf');
    const loaded = status({ dropInPaths: [] });
    expect(withUnloadedDropIns('c.service', loaded, files)).toBe(loaded);
    const shown = status({ dropInPaths: ['/run/systemd/system/b.service.d/x.conf'] });
    expect(withUnloadedDropIns('b.service', shown, files)).toBe(shown);
    const listed = { ...notFound, dropInPaths: ['/run/systemd/system/b.service.d/y.conf'] };
    expect(withUnloadedDropIns('b.service', listed, files)).toBe(listed);
    const masked = status({ loadState: 'masked', dropInPaths: [] });
    expect(withUnloadedDropIns('b.service', masked, files)).toBe(masked);
    expect(withUnloadedDropIns('t@.service', notFound, files)).toBe(notFound);
    expect(withUnloadedDropIns('c.service', notFound, files)).toBe(notFound);
  });

  // Regression: `show` keeps a loaded unit's DropInPaths until a daemon-reload (NeedDaemonReload=no, measured,
  // systemd 252), so a drop-in made by hand after it read as none while the apply's reload and enable read it.
  test("adds to a loaded unit's drop-ins those on disk systemd has not loaded, its template's too, in order", () => {
    const files = read(
      '/etc/systemd/system/a@x.service.d/10-a.conf',
      '/etc/systemd/system/a@.service.d/zz.conf',
      '/run/systemd/system/a@x.service.d/05-b.conf',
    );
    const loaded = status({
      fragmentPath: '/etc/systemd/system/a@.service',
      dropInPaths: ['/etc/systemd/system/a@x.service.d/10-a.conf', '/usr/lib/systemd/system/service.d/50-t.conf'],
    });
    const merged = withUnloadedDropIns('a@x.service', loaded, files);
    expect(merged.unloadedDropIns).toEqual([
      '/run/systemd/system/a@x.service.d/05-b.conf',
      '/etc/systemd/system/a@.service.d/zz.conf',
    ]);
    const dropIns = [
      '/run/systemd/system/a@x.service.d/05-b.conf',
      '/etc/systemd/system/a@x.service.d/10-a.conf',
      '/usr/lib/systemd/system/service.d/50-t.conf',
      '/etc/systemd/system/a@.service.d/zz.conf',
    ];
    expect(merged.dropInPaths).toEqual(dropIns);
    expect(merged.contentPaths).toEqual(['/etc/systemd/system/a@.service', ...dropIns]);
  });

  // Regression: a drop-in made by hand in `a-.service.d/` or `service.d/` after the last reload is not loaded either
  // (measured, systemd 252: DropInPaths unchanged, NeedDaemonReload=no): the plan was clean while the next reload
  // changed the unit. Each file name once, as systemd's dropin.c orders the directories: every name's in each
  // directory in turn, then the type's.
  test("adds those of its name's prefixes and its type, each file name from the first directory searched", () => {
    const files = read(
      '/usr/lib/systemd/system/a-b.service.d/10-x.conf',
      '/etc/systemd/system/a-.service.d/10-x.conf',
      '/etc/systemd/system/a-.service.d/20-p.conf',
      '/etc/systemd/system/service.d/20-p.conf',
      '/etc/systemd/system/service.d/30-t.conf',
      '/etc/systemd/system/b-.service.d/40-other.conf',
      '/etc/systemd/system/socket.d/50-other.conf',
    );
    const loaded = status({ fragmentPath: '/etc/systemd/system/a-b.service', dropInPaths: [] });
    expect(withUnloadedDropIns('a-b.service', loaded, files).unloadedDropIns).toEqual([
      '/etc/systemd/system/a-.service.d/10-x.conf',
      '/etc/systemd/system/a-.service.d/20-p.conf',
      '/etc/systemd/system/service.d/30-t.conf',
    ]);
  });

  test.each([
    ['x.service', ['x.service'], 'service'],
    ['a-b-c.service', ['a-b-c.service', 'a-b-.service', 'a-.service'], 'service'],
    ['a--b.socket', ['a--b.socket', 'a--.socket', 'a-.socket'], 'socket'],
    ['a-b@x-y.service', ['a-b@x-y.service', 'a-b@.service', 'a-.service'], 'service'],
    ['a-.service', ['a-.service'], 'service'],
  ])('%s: its drop-ins are searched under %p, then %s', (unit, names, type) => {
    expect(dropInNames(unit)).toEqual({ names, type });
  });

  test('the plan names them, in words, and the apply reloads systemd for them', () => {
    const unloadedDropIns = ['/etc/systemd/system/check.service.d/zz.conf'];
    const before = live({ unloadedDropIns, dropInPaths: unloadedDropIns });
    const changes = diffUnit(spec, before);
    expect(changes).toEqual({ unloadedDropIns: { live: unloadedDropIns, want: 'loaded by a daemon-reload' } });
    expect(summarizeUnit(spec, 'h', before, changes)).toBe(
      "unit check.service on h (inactive/dead): systemd has not loaded the host's drop-in " +
        "/etc/systemd/system/check.service.d/zz.conf (made after its last daemon-reload): the apply's " +
        'daemon-reload loads it',
    );
    const object = { change: { sort: 'unit', spec } as const, before, wrote: false, unmasked: false, switched: false };
    expect(needsReload([object])).toBe(true);
    expect(needsReload([{ ...object, before: live() }])).toBe(false);
  });
});

test("the read's script names every name show gives each unit, and finds no file where there is none", () => {
  const s = [
    'Id=a.service',
    'LoadState=loaded',
    'Names=a.service a-al.service',
    '',
    'Id=b@x.service',
    'LoadState=not-found',
    'Names=b@x.service',
    '',
  ].join('\n');
  const script = `${UNLOADED_DROP_INS}; printf 'u=%s m=%s\\n' "$u" "$m"`;
  const out = execFileSync('sh', ['-c', script], { env: { PATH: process.env.PATH, s } }).toString();
  expect(out).toBe('u=a.service a-al.service\nb@x.service m=\n');
});

// The script's walk of a name's prefixes is dropInNames's: the directories it globs, printed instead.
// Every name: pid1 loads the drop-ins of an Alias= name's `.d/` too (measured, systemd 252).
test.each(['a-b-c.service', 'a--b.socket', 'a-b@x-y.service', 'a-.service', 'x.service', 'x.service y-z.service'])(
  "the read's script searches the directories dropInNames names for %s",
  (known) => {
    const s = `Id=${known.split(' ')[0]}\nNames=${known}\n`;
    const script = UNLOADED_DROP_INS.replace(/for f in "\$d\/\$x\.d\/"\*\.conf; do [^;]*; done/g, 'echo "$d/$x"');
    const out = execFileSync('sh', ['-c', `${script}; printf '%s\\n' "$m"`], { env: { PATH: process.env.PATH, s } });
    const searched = new Set(
      out
        .toString()
        .trim()
        .split('\n')
        .map((path) => path.slice(path.lastIndexOf('/') + 1)),
    );
    const each = known.split(' ').map(dropInNames);
    expect([...searched].sort()).toEqual([...new Set(each.flatMap(({ names, type }) => [...names, type]))].sort());
  },
);

describe('a template read, which `show` refuses', () => {
  const declared = { as: 'unit', path: '/etc/systemd/system/t@.service' } as const;
  /** The read's answer for template t@.service declared in /etc when `files` are on disk, each its own inode. */
  const readTemplate = (...files: string[]) => {
    const digests = files.map((file) => `${'ab'.repeat(32)}  ${file}\n`).join('');
    const stats = files.map((file, inode) => `1 8:${inode} ${file}\n`).join('');
    const stdout = `@@cdktf-homelab:files\n${digests}@@cdktf-homelab:stats\n${stats}@@cdktf-homelab:unit-files\n`;
    const entry = { unit: 't@.service', file: declared.path, declared };
    return parseReadScript(`${stdout}t@.service indirect enabled\n`, [entry])?.[0];
  };

  test.each([
    ['/etc/systemd/system.control', true],
    ['/run/systemd/system.control', true],
    ['/run/systemd/transient', true],
    ['/run/systemd/system', false],
    ['/usr/lib/systemd/system', false],
  ])('with a copy in %s reads overridden by it: %s, as systemd ranks it against /etc', (directory, shadows) => {
    const by = `${directory}/t@.service`;
    const live = readTemplate(declared.path, by);
    expect(live?.status.fragmentPath).toBe(shadows ? by : declared.path);
    expect(live?.overridden).toEqual(shadows ? { declared, by } : undefined);
  });

  test('with no copy, or no file at all, is overridden by nothing', () => {
    expect(readTemplate(declared.path)?.overridden).toBeUndefined();
    expect(readTemplate()?.status.loadState).toBe('not-found');
    expect(readTemplate()?.overridden).toBeUndefined();
  });
});
