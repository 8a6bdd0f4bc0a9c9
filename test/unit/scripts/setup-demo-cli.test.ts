/**
 * scripts/setup-demo-cli.sh runs the cdktf it finds in its cache and prunes old installs there, so a cache folder
 * another user can write is theirs to plant in: a cdktf of their own at the install's predictable name, or a link
 * among the installs that the prune's `rm -rf link/` emptied the target of (an audit, 2026-12-07). The demo sources
 * setup-terraform.sh's env.sh from the same cache first. `npm` is a stub here that makes an install in a moment, so
 * no test reaches the registry.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SCRIPT = join(__dirname, '..', '..', '..', 'scripts', 'setup-demo-cli.sh');

/** An `npm` whose `ci` makes node_modules/.bin/cdktf, and whose version is `version` (a new one is a new install). */
const STUB_NPM = `#!/bin/sh
case $1 in
--version) echo "$STUB_NPM_VERSION" ;;
ci) mkdir -p node_modules/.bin && printf '#!/bin/sh\\n' >node_modules/.bin/cdktf && chmod +x node_modules/.bin/cdktf ;;
esac
`;

let root: string;
let bin: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'demo-cli-'));
  bin = join(root, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'npm'), STUB_NPM, { mode: 0o755 });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** The script run by a shell whose umask is 002 (a user-private group's default), so a folder it makes is its own. */
const setup = (version = '1.0.0') =>
  spawnSync('bash', ['-c', 'umask 002 && exec bash "$0"', SCRIPT], {
    encoding: 'utf8',
    env: {
      ...process.env,
      CDKTF_HOMELAB_CACHE: join(root, 'cache'),
      STUB_NPM_VERSION: version,
      PATH: `${bin}:${process.env.PATH ?? ''}`,
    },
  });

describe('setup-demo-cli.sh', () => {
  test('installs into a cache it makes private under umask 002 and prints the install it made', () => {
    const { status, stdout } = setup();
    expect(status).toBe(0);
    expect(existsSync(join(stdout.trim(), 'node_modules', '.bin', 'cdktf'))).toBe(true);
  });

  test('refuses a cache folder any user may write, running nothing found there', () => {
    expect(setup().status).toBe(0);
    chmodSync(join(root, 'cache', 'demo-cli'), 0o777);
    const { status, stdout, stderr } = setup();
    expect({ status, stdout }).toEqual({ status: 1, stdout: '' });
    expect(stderr).toMatch(/demo-cli is writable by other users/);
  });

  test('refuses a cache root any user may write, where the demo-cli folder could be swapped', () => {
    mkdirSync(join(root, 'cache'), { mode: 0o777 });
    chmodSync(join(root, 'cache'), 0o777);
    const { status, stderr } = setup();
    expect(status).toBe(1);
    expect(stderr).toMatch(/cache is writable by other users/);
  });

  test("the prune of old installs removes no link's target and no name that is not an install's", () => {
    const victim = join(root, 'victim');
    mkdirSync(victim);
    writeFileSync(join(victim, 'precious'), 'kept');
    for (const version of ['1', '2', '3']) expect(setup(version).status).toBe(0);
    const cache = join(root, 'cache', 'demo-cli');
    const old = new Date('2000-01-01');
    symlinkSync(victim, join(cache, 'aaaaaaaaaaaa'));
    mkdirSync(join(cache, 'not an install'));
    utimesSync(join(cache, 'not an install'), old, old);
    utimesSync(victim, old, old);
    expect(setup('4').status).toBe(0);
    expect(existsSync(join(victim, 'precious'))).toBe(true);
    expect(existsSync(join(cache, 'not an install'))).toBe(true);
    expect(readdirSync(cache).filter((name) => /^[0-9a-f]{12}$/.test(name))).toHaveLength(4); // 3 installs, the link
  });
});

/** The other scripts that run or source what they cached: the demo's toolchain; the tests' Node, API server, host. */
describe.each([
  ['setup-terraform.sh', '--default-only'],
  ['setup-node.sh'],
  ['setup-kube.sh'],
  ['setup-systemd-host.sh'],
])('%s', (name, ...args) => {
  test('refuses a cache root any user may write before it uses or builds anything there', () => {
    mkdirSync(join(root, 'cache'), { mode: 0o777 });
    chmodSync(join(root, 'cache'), 0o777);
    const run = spawnSync('bash', [join(__dirname, '..', '..', '..', 'scripts', name), ...args], {
      encoding: 'utf8',
      timeout: 20_000,
      env: { ...process.env, CDKTF_HOMELAB_CACHE: join(root, 'cache') },
    });
    expect({ status: run.status, error: run.stderr.match(/cache is writable by other users/)?.[0] }).toEqual({
      status: 1,
      error: 'cache is writable by other users',
    });
    // Each made its folder under the root before the check, and nothing in it.
    const made = readdirSync(join(root, 'cache'));
    expect(made.flatMap((folder) => readdirSync(join(root, 'cache', folder)))).toEqual([]);
  });
});
