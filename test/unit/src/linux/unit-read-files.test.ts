/**
 * The files a unit read digests, chosen by the read script itself under /bin/sh (dash here, as on Debian hosts):
 * the regular files of the declared paths and of those systemd loaded, in order, and nothing else, so sha256sum
 * never waits on a FIFO and a path, whatever it holds, is never run as code by the `eval` that keeps the list
 * linear (unit-read.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readScript } from '../../../../src/linux/unit-read';

/** The script's lines from its file list up to sha256sum, run with `$s` as `systemctl show` would have set it. */
const chosenFiles = (script: string, shown: string, cwd?: string): string[] => {
  const lines = script.split('\n');
  const from = lines.findIndex((line) => line.includes('set -- '));
  const selection = lines[from] ?? '';
  const out = execFileSync('/bin/sh', ['-c', `s=$1; shift; ${selection}\nprintf '%s\\n' "$@"`, 'sh', shown], {
    encoding: 'utf8',
    cwd,
  });
  return out.split('\n').filter((line) => line !== '');
};

describe('the files a unit read digests', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'unit-read-files-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('the regular files of the declared and the loaded paths, in order: no absent one, directory or FIFO', () => {
    const [a, gone, sub, b, loaded] = ['a.service', 'gone.service', 'sub.d', 'b.service', 'l.service'].map((name) =>
      join(dir, name),
    );
    for (const file of [a, b, loaded]) writeFileSync(file ?? '', '[Unit]\n');
    mkdirSync(sub ?? '');
    execFileSync('mkfifo', [join(dir, 'fifo.service')]);
    const script = readScript(
      [a, gone, sub, join(dir, 'fifo.service'), b].map((file, i) => ({ unit: `u${i}.service`, file })),
    );
    expect(chosenFiles(script, `FragmentPath=${loaded}\nDropInPaths=\n`)).toEqual([a, b, loaded]);
  });

  test('a path holding quotes, spaces or a command substitution is kept as a name, never run', () => {
    const odd = join(dir, `it's "a" $(touch ran) \`touch ran\` \${x}.service`);
    writeFileSync(odd, '[Unit]\n');
    expect(chosenFiles(readScript([{ unit: 'odd.service', file: odd }]), '', dir)).toEqual([odd]);
    expect(() => execFileSync('test', ['-e', join(dir, 'ran')])).toThrow();
  });

  // Regression: `systemctl show` prints such a path double-quoted (measured, systemd 252); split on spaces it was
  // words that are no file, and the drop-in systemd loaded went unread.
  test('a loaded drop-in whose name holds a space, tab, quote, glob or `$(...)` is one file, never run', () => {
    const names = ['my override.conf', 't\tb.conf', `q'u"o.conf`, 'g*.conf', 'c$(touch ran).conf', 'b\\x20s.conf'];
    const paths = names.map((name) => join(dir, name));
    for (const path of [...paths, join(dir, 'gx.conf')]) writeFileSync(path, '');
    const escaped = (path: string) =>
      /[\s"'\\$*]/.test(path) ? `"${path.replace(/[\\"$`]/g, (c) => `\\${c}`).replace(/\t/g, '\\t')}"` : path;
    const shown = `FragmentPath=${join(dir, 'gx.conf')}\nDropInPaths=${paths.map(escaped).join(' ')}\n`;
    expect(chosenFiles(readScript([]), shown, dir)).toEqual([join(dir, 'gx.conf'), ...paths]);
    expect(() => execFileSync('test', ['-e', join(dir, 'ran')])).toThrow();
  });

  test('with 400 paths every one is kept, once', () => {
    const files = Array.from({ length: 400 }, (_, i) => join(dir, `u${i}.service`));
    for (const file of files) writeFileSync(file, '');
    const script = readScript(files.map((file, i) => ({ unit: `u${i}.service`, file })));
    expect(chosenFiles(script, '')).toEqual(files);
  });
});
