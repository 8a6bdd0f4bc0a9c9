/**
 * The last-good-member memory against a hostile neighbour: links, a FIFO, /dev/zero, garbage, an
 * oversized file and a directory that is not the user's alone all read as "no memory", and a
 * save never writes through a link. Each load runs in a child process with a time limit, so a
 * regression that hangs or reads forever fails the test instead of hanging jest.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { lastGoodStore, stateBase } from '../../src/core/http/last-good';

const ENDPOINTS = ['https://n1:8006', 'https://n2:8006'];
const work = mkdtempSync(join(tmpdir(), 'homelab-faults-'));
const cli = join(work, 'last-good-cli.js');
let base: string;
const uid = process.getuid?.() ?? -1;
const privateDir = () => join(base, `cdktf-homelab-${uid}`);

/** The one file the store keeps, found by saving once: its name is the store's business. */
const memoryFile = (): string => {
  lastGoodStore('pve', ENDPOINTS, base).save(ENDPOINTS[1] ?? '');
  const [name] = readdirSync(privateDir());
  return join(privateDir(), name ?? 'missing');
};

/** `load()` in a child process that must finish within 20 s: a FIFO or /dev/zero read would never end, and a
 * node start alone took over 5 s with four test passes on 2 cores. */
const loadInChild = (): string | null => {
  const child = spawnSync(process.execPath, [cli, base, ...ENDPOINTS], { timeout: 20_000, encoding: 'utf8' });
  if (child.status !== 0)
    throw new Error(`load did not finish cleanly (status ${child.status}, signal ${child.signal}): ${child.stderr}`);
  return JSON.parse(child.stdout) as string | null;
};

beforeAll(async () => {
  const source = join(__dirname, '../../src/core/http/last-good.ts');
  await build({
    stdin: {
      contents: `import { lastGoodStore } from ${JSON.stringify(source)};
        const [base, ...endpoints] = process.argv.slice(2);
        process.stdout.write(JSON.stringify(lastGoodStore('pve', endpoints, base).load() ?? null));`,
      resolveDir: work,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    outfile: cli,
    logLevel: 'error',
  });
});
beforeEach(() => {
  base = mkdtempSync(join(work, 'base-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('last-good memory', () => {
  test('a saved member is loaded back from a 0600 file in a 0700 directory of the user', () => {
    const file = memoryFile();
    expect(loadInChild()).toBe(ENDPOINTS[1]);
    expect(statSync(privateDir()).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  test('$XDG_RUNTIME_DIR is preferred, and the temp directory is the fallback', () => {
    expect(stateBase({ XDG_RUNTIME_DIR: '/run/user/1000' })).toBe('/run/user/1000');
    expect(stateBase({ XDG_RUNTIME_DIR: 'relative/dir' })).toBe(tmpdir());
    expect(stateBase({})).toBe(tmpdir());
  });

  test.each<[string, (file: string) => void]>([
    [
      'a symlink to a file naming a member',
      (file) => {
        const victim = join(work, `victim-${Date.now()}`);
        writeFileSync(victim, ENDPOINTS[0] ?? '');
        symlinkSync(victim, file);
      },
    ],
    [
      'a FIFO (a reader would block)',
      (file) => {
        const made = spawnSync('mkfifo', [file]);
        if (made.status !== 0) throw new Error('mkfifo failed');
      },
    ],
    ['a symlink to /dev/zero (it never ends)', (file) => symlinkSync('/dev/zero', file)],
    ['garbage', (file) => writeFileSync(file, Buffer.from([0xff, 0xfe, 0x00, 0x41]))],
    ['a member that is not in the list', (file) => writeFileSync(file, 'https://attacker:8006')],
    [
      'a file larger than 4 KiB that starts with a member',
      (file) => writeFileSync(file, `${ENDPOINTS[0]}\n${' '.repeat(5000)}`),
    ],
    ['a directory', (file) => mkdirSync(file)],
  ])('%s at the memory path reads as no memory, at once', (_, plant) => {
    const file = memoryFile();
    rmSync(file);
    plant(file);
    expect(loadInChild()).toBeNull();
  });

  test('a save replaces a planted symlink instead of writing through it', () => {
    const file = memoryFile();
    rmSync(file);
    const victim = join(work, 'victim-save');
    writeFileSync(victim, 'precious');
    symlinkSync(victim, file);
    lastGoodStore('pve', ENDPOINTS, base).save(ENDPOINTS[0] ?? '');
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    expect(loadInChild()).toBe(ENDPOINTS[0]);
  });

  test('a private directory with another mode is not trusted: nothing is read from it or written to it', () => {
    memoryFile();
    chmodSync(privateDir(), 0o755);
    expect(loadInChild()).toBeNull();
    const before = readdirSync(privateDir());
    lastGoodStore('pve', ENDPOINTS, base).save(ENDPOINTS[0] ?? '');
    expect(readdirSync(privateDir())).toEqual(before);
  });

  test('a world-writable parent without the sticky bit is not used at all', () => {
    chmodSync(base, 0o777);
    lastGoodStore('pve', ENDPOINTS, base).save(ENDPOINTS[0] ?? '');
    expect(readdirSync(base)).toEqual([]);
  });

  const asRoot = uid === 0 ? test : test.skip;
  asRoot('a private directory owned by someone else is not trusted (needs root to chown; skipped otherwise)', () => {
    const file = memoryFile();
    chownSync(privateDir(), 65534, 65534);
    chownSync(file, 65534, 65534);
    expect(loadInChild()).toBeNull();
    lastGoodStore('pve', ENDPOINTS, base).save(ENDPOINTS[0] ?? '');
    expect(readFileSync(file, 'utf8')).toBe(ENDPOINTS[1]);
  });
});
