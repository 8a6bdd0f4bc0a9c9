/**
 * The files of a unit systemd has not loaded (src/linux/unloaded-drop-ins.ts). Regression: `show` lists no drop-in for
 * a unit whose file is not there yet (measured, systemd 252), so a drop-in made by hand that empties its [Install]
 * went unseen, and the apply wrote, enabled and started the unit before its read back failed. And `show` refuses a
 * template's name, so a copy of a template ranked higher read as no shadow while its instances loaded it.
 */
import { execFileSync } from 'node:child_process';
import { parseReadScript } from '../../../../src/linux/unit-read';
import { UNLOADED_DROP_INS, withUnloadedDropIns } from '../../../../src/linux/unloaded-drop-ins';
import { status } from './unit-fixtures';

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

  test('leaves a loaded unit, one whose drop-ins systemd listed, and a template as they are', () => {
    const files = read('/etc/systemd/system/b.service.d/x.conf', '/etc/systemd/system/t@.service.d/x.conf');
    const loaded = status({ dropInPaths: [] });
    expect(withUnloadedDropIns('b.service', loaded, files)).toBe(loaded);
    const listed = { ...notFound, dropInPaths: ['/run/systemd/system/b.service.d/y.conf'] };
    expect(withUnloadedDropIns('b.service', listed, files)).toBe(listed);
    expect(withUnloadedDropIns('t@.service', notFound, files)).toBe(notFound);
    expect(withUnloadedDropIns('c.service', notFound, files)).toBe(notFound);
  });
});

test("the read's script names the units show calls not-found, and finds no file where there is none", () => {
  const s = ['Id=a.service', 'LoadState=loaded', '', 'Id=b@x.service', 'LoadState=not-found', ''].join('\n');
  const script = `${UNLOADED_DROP_INS}; printf 'u=%s m=%s\\n' "$u" "$m"`;
  const out = execFileSync('sh', ['-c', script], { env: { PATH: process.env.PATH, s } }).toString();
  expect(out).toBe('u=b@x.service m=\n');
});

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
