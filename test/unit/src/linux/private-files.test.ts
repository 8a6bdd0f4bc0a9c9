/**
 * The record's digest of what a unit's process started with takes a file other users may not read by its stamp, never
 * its sha256 (private-files.ts): the read's stat lines carry each file's and `.d/` directory's mode.
 */
import { closedDirsOf, contentLine, withClosedDirs } from '../../../../src/linux/private-files';
import { loadedContent, statsByPath } from '../../../../src/linux/unit-loaded';

const SHA = 'ab'.repeat(32);
const D = '/etc/systemd/system/a.service.d';
const stats = (mode: string, dirMode = '755') =>
  withClosedDirs(statsByPath(`1.5 2049:7 s42 m${mode} ${D}/x.conf\n`), closedDirsOf(`d1.2 m${dirMode} ${D}\n`));

describe('contentLine', () => {
  test.each([
    ['644', '755', `${SHA}  ${D}/x.conf\n`],
    ['604', '711', `${SHA}  ${D}/x.conf\n`],
    ['600', '755', `stamp 1.5 2049:7 42  ${D}/x.conf\n`],
    ['640', '755', `stamp 1.5 2049:7 42  ${D}/x.conf\n`],
    ['644', '700', `stamp 1.5 2049:7 42  ${D}/x.conf\n`],
    ['644', '754', `stamp 1.5 2049:7 42  ${D}/x.conf\n`],
  ])('a file of mode %s in a directory of mode %s is its line %j', (mode, dirMode, line) => {
    expect(contentLine(`${D}/x.conf`, SHA, stats(mode, dirMode).get(`${D}/x.conf`))).toBe(line);
  });

  test('a file under a unit directory others may not search goes by its stamp, in its .d directory or not', () => {
    const closed = closedDirsOf(`d1.2 m700 /etc/systemd/system\nd1.2 m755 ${D}\n`);
    const lines = `1.5 2049:7 s42 m644 ${D}/x.conf\n1.5 2049:8 s9 m644 /etc/systemd/system/a.service\n`;
    const stats = withClosedDirs(statsByPath(lines), closed);
    expect([...stats.values()].map((stat) => stat.othersRead)).toEqual([false, false]);
    expect(withClosedDirs(statsByPath(lines), closedDirsOf('d1.2 m700 /etc/systemd/system.control\n')).size).toBe(2);
    expect(
      [...withClosedDirs(statsByPath(lines), closedDirsOf('d1.2 m700 /etc/systemd/sys\n')).values()].map(
        (stat) => stat.othersRead,
      ),
    ).toEqual([true, true]);
  });

  test('a file with no mode read (no m field) goes by its digest, as before; with neither, by nothing', () => {
    const stat = statsByPath(`1.5 2049:7 s42 ${D}/x.conf\n`).get(`${D}/x.conf`);
    expect(contentLine(`${D}/x.conf`, SHA, stat)).toBe(`${SHA}  ${D}/x.conf\n`);
    expect(contentLine(`${D}/x.conf`, undefined, stat)).toBeUndefined();
  });
});

describe('loadedContent', () => {
  test('holds no digest of a file others may not read: a guess of it gives another content', () => {
    const guessed = loadedContent([`${D}/x.conf`], new Map([[`${D}/x.conf`, SHA]]), stats('644')).content;
    expect(loadedContent([`${D}/x.conf`], new Map([[`${D}/x.conf`, SHA]]), stats('600')).content).not.toBe(guessed);
  });

  test('changes with the stamp of a file others may not read, and not with its digest', () => {
    const of = (sha: string, stat: string) =>
      loadedContent([`${D}/x.conf`], new Map([[`${D}/x.conf`, sha]]), statsByPath(`${stat} m600 ${D}/x.conf\n`))
        .content;
    expect(of(SHA, '1.5 2049:7 s42')).toBe(of('cd'.repeat(32), '1.5 2049:7 s42'));
    expect(of(SHA, '1.5 2049:7 s42')).not.toBe(of(SHA, '1.6 2049:7 s42'));
  });

  test('takes a file systemd rewrites at each reload by its digest, whatever its mode', () => {
    const path = '/run/systemd/generator/a.service.d/x.conf';
    const of = (stat: string) =>
      loadedContent([path], new Map([[path, SHA]]), statsByPath(`${stat} m600 ${path}\n`)).content;
    expect(of('1.5 2049:7 s42')).toBe(of('9.5 2049:8 s42'));
  });
});
