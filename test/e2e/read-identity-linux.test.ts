/**
 * Plans with a read login (issue 19 item 1), with real terraform or OpenTofu on examples/systemd.ts given
 * `readUser: 'watcher'` against the real systemd host over real SSH: watcher is a plain user with no sudo rule and a
 * key of its own that root does not trust. The apply converges with both keys set; a plan with ONLY watcher's key in
 * the environment is clean, then shows a unit stopped by hand in words; root's key given under the read variable
 * (an operator's one key, trusted for both logins) still plans; a unit file watcher may not read fails the plan naming
 * the login, its key's variable and the file, where it used to be planned as absent; a key the host does not trust
 * for watcher fails the plan naming its variable and the user.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CdktfProject } from '../support/cdktf-project';
import { generateKey } from '../support/ssh-client';
import { startSystemdHost, type SystemdHost } from '../support/systemd-host';

jest.setTimeout(300_000);

let host: SystemdHost;
let project: CdktfProject;
let watcherKey: string;
/** A key no user on the host trusts. */
let strangerKey: string;
/** The project's environment, changed between steps: CdktfProject reads it on every command. */
const env: NodeJS.ProcessEnv = {};

beforeAll(async () => {
  host = await startSystemdHost();
  const dir = mkdtempSync(join(tmpdir(), 'watcher-key-'));
  const watcher = generateKey(join(dir, 'key'));
  strangerKey = generateKey(join(dir, 'stranger')).private;
  rmSync(dir, { recursive: true });
  watcherKey = watcher.private;
  // Root's key is trusted for every user by the host's shared AuthorizedKeysFile; watcher's, by watcher alone.
  await host.exec(
    'useradd -m -s /bin/sh watcher && install -d -o watcher -m 700 /home/watcher/.ssh && ' +
      `echo '${watcher.public}' > /home/watcher/.ssh/authorized_keys && ` +
      'chown watcher /home/watcher/.ssh/authorized_keys',
  );
  Object.assign(env, {
    HOMELAB_SSH_HOST: host.host,
    HOMELAB_SSH_PORT: String(host.port),
    HOMELAB_SSH_HOST_KEY: host.hostKeyFingerprint,
    HOMELAB_SSH_READ_USER: 'watcher',
  });
  project = new CdktfProject('build/examples/systemd.js', 'node-check', env);
  await project.must('synth', project.synth());
  await project.must('init', project.terraform('init', '-no-color'));
});

afterAll(async () => {
  console.log(`read-identity-linux e2e timings (s): ${project?.report()}`);
  await host?.stop();
  project?.cleanup();
});

/** A plan with `keys` as the only SSH keys in the environment. */
const planWith = (keys: { HOMELAB_SSH_READ_KEY?: string; HOMELAB_SSH_KEY?: string }) => {
  delete env.HOMELAB_SSH_READ_KEY;
  delete env.HOMELAB_SSH_KEY;
  Object.assign(env, keys);
  return project.terraform('plan', '-detailed-exitcode', '-no-color');
};
const words = (text: string) => text.replace(/\s+/g, ' ');

test('the apply converges with both keys, and a plan with ONLY the read key is clean', async () => {
  Object.assign(env, { HOMELAB_SSH_KEY: host.privateKey, HOMELAB_SSH_READ_KEY: watcherKey });
  await project.must('apply', project.terraform('apply', '-auto-approve', '-no-color'));
  const state = await host.exec('systemctl show -p ActiveState -- hf-agent.service');
  expect(state.stdout).toContain('ActiveState=active');
  const plan = await planWith({ HOMELAB_SSH_READ_KEY: watcherKey });
  expect(plan).toMatchObject({ code: 0, stderr: '' });
});

test('a plan with ONLY the read key shows a unit stopped by hand, in words', async () => {
  await host.exec('systemctl stop hf-agent.service');
  const plan = await planWith({ HOMELAB_SSH_READ_KEY: watcherKey });
  expect(plan.code).toBe(2);
  expect(words(plan.stdout)).toContain(
    `unit hf-agent.service on 127.0.0.1:${host.port} (inactive/dead) differs: ` +
      'running is "inactive/dead", want "running"',
  );
});

test("root's key under the read variable, trusted for watcher too, still plans", async () => {
  const plan = await planWith({ HOMELAB_SSH_READ_KEY: host.privateKey });
  expect(plan.code).toBe(2);
  expect(words(plan.stdout)).toContain('running is "inactive/dead", want "running"');
});

test('a unit file the read login may not read fails the plan naming the login, its variable and the file', async () => {
  await host.exec('chmod 0600 /etc/systemd/system/hf-agent.service');
  const plan = await planWith({ HOMELAB_SSH_READ_KEY: watcherKey });
  await host.exec('chmod 0644 /etc/systemd/system/hf-agent.service');
  expect(plan.code).toBe(1);
  expect(words(plan.stderr)).toContain(
    'watcher (the key in HOMELAB_SSH_READ_KEY) was refused read access to /etc/systemd/system/hf-agent.service',
  );
});

test('a read key the host does not trust for watcher fails the plan naming its variable and the user', async () => {
  const plan = await planWith({ HOMELAB_SSH_READ_KEY: strangerKey });
  expect(plan.code).toBe(1);
  expect(words(plan.stderr)).toContain('the host refused the key in HOMELAB_SSH_READ_KEY for user watcher');
});
