// Test of the kubeconfig trust rule on real files (issue 16 item 11): the handler refuses a kubeconfig, a KUBECONFIG
// entry, an exec command or a tokenFile that another user could write or create, before it runs or sends anything,
// so a planted exec plugin never runs as the person running Terraform, nor is their token sent as ours. Owners other
// than ours are made with chown, so only as root.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { stringify } from 'yaml';
import { kubeDomain } from '../../../../handlers/kube/domain';
import { nodeKubeconfigIo } from '../../../../src/kube/connection';
import { loadKubeconfig } from '../../../../src/kube/kubeconfig';
import { invoke } from '../../../support/run-handler';
import { single } from './kubeconfig-fixtures';

const NOBODY = 65534;
const asRoot = process.getuid?.() === 0 ? test : test.skip;

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kube-trust-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A plugin that leaves a mark when it runs: the proof that a refused kubeconfig ran nothing. */
const plugin = (mark: string) => {
  const file = path.join(dir, 'plugin.sh');
  fs.writeFileSync(file, `#!/bin/sh\ntouch '${mark}'\nexit 1\n`, { mode: 0o755 });
  return file;
};
const writeKubeconfig = (file: string, command: string, mode = 0o600) => {
  const exec = { apiVersion: 'client.authentication.k8s.io/v1', command, interactiveMode: 'Never' };
  const config = {
    'current-context': 'x',
    clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1', 'insecure-skip-tls-verify': true } }],
    users: [{ name: 'u', user: { exec } }],
    contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
  };
  fs.writeFileSync(file, stringify(config), { mode });
  fs.chmodSync(file, mode); // the umask may have taken bits away
  return file;
};
const read = (kubeconfig: string) => invoke(kubeDomain(), 'kube-repo', 'read', { name: 'home', kubeconfig }, REPO);
const REPO = {
  namespace: 'jr2',
  key: 'site',
  version: 'v1alpha1',
  url: 'https://git.example/me/site.git',
  identity: 'git.example/me/site',
  credentials: [],
  refreshInterval: '5m',
};

test('a world-writable kubeconfig is refused before its exec plugin runs, naming the file and the fix', async () => {
  const mark = path.join(dir, 'ran');
  const kubeconfig = writeKubeconfig(path.join(dir, 'config'), plugin(mark), 0o666);
  const run = await read(kubeconfig);
  expect(run.code).toBe(1);
  expect(run.stderr).toContain(`Kubeconfig not trusted: kubeconfig ${kubeconfig} is writable by group or others`);
  expect(run.stderr).toContain(`run chmod go-w ${kubeconfig}`);
  expect(fs.existsSync(mark)).toBe(false);
});

test('the same kubeconfig at mode 0600 is used: the plugin runs (and is what fails)', async () => {
  const mark = path.join(dir, 'ran');
  const run = await read(writeKubeconfig(path.join(dir, 'config'), plugin(mark)));
  expect(run.stderr).toContain('Kubernetes exec credential failed');
  expect(fs.existsSync(mark)).toBe(true);
});

test('an exec command others can write is refused before it runs', async () => {
  const mark = path.join(dir, 'ran');
  const command = plugin(mark);
  fs.chmodSync(command, 0o777);
  const run = await read(writeKubeconfig(path.join(dir, 'config'), command));
  expect(run.stderr).toContain(`exec command of user "u" ${command} is writable by group or others (mode 0777)`);
  expect(fs.existsSync(mark)).toBe(false);
});

test('a KUBECONFIG entry that does not exist, in a directory anyone can create files in, is refused', () => {
  const shared = path.join(dir, 'shared');
  fs.mkdirSync(shared);
  fs.chmodSync(shared, 0o1777);
  const ours = writeKubeconfig(path.join(dir, 'config'), 'true');
  const io = { ...nodeKubeconfigIo(), env: { KUBECONFIG: `${shared}/config:${ours}` } };
  expect(() => loadKubeconfig({}, io)).toThrow(
    `kubeconfig ${shared}/config does not exist, and directory ${shared} is writable by group or others (mode 1777)`,
  );
});

test('a link to a kubeconfig in a directory others can write is refused, naming the link and its target', () => {
  const shared = path.join(dir, 'shared');
  fs.mkdirSync(shared);
  fs.chmodSync(shared, 0o777);
  const target = writeKubeconfig(path.join(shared, 'config'), 'true');
  const link = path.join(dir, 'config');
  fs.symlinkSync(target, link);
  expect(() => loadKubeconfig({ kubeconfig: link }, nodeKubeconfigIo())).toThrow(
    `kubeconfig ${link} (a link to ${target}) is in directory ${shared}, which is writable by group or others`,
  );
});

asRoot('a kubeconfig owned by another user (nobody) is refused, as root too', async () => {
  const mark = path.join(dir, 'ran');
  const kubeconfig = writeKubeconfig(path.join(dir, 'config'), plugin(mark));
  fs.chownSync(kubeconfig, NOBODY, NOBODY);
  const run = await read(kubeconfig);
  expect(run.stderr).toContain(`kubeconfig ${kubeconfig} is owned by uid ${NOBODY}, not by you (uid 0) or root`);
  expect(run.stderr).toContain(`chown 0 ${kubeconfig}`);
  expect(fs.existsSync(mark)).toBe(false);
});

asRoot('an exec command in a directory owned by another user (nobody) is refused', async () => {
  const mark = path.join(dir, 'ran');
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  const command = path.join(bin, 'token');
  fs.renameSync(plugin(mark), command);
  fs.chownSync(bin, NOBODY, NOBODY);
  const run = await read(writeKubeconfig(path.join(dir, 'config'), command));
  expect(run.stderr).toContain(`exec command of user "u" ${command} is in directory ${bin}, which is owned by uid`);
  expect(fs.existsSync(mark)).toBe(false);
});

// Audit: a neighbour's token file (nobody's, mode 0666, in a sticky shared directory) was sent as the bearer token.
asRoot('a tokenFile owned by another user (nobody) is refused before it is read', async () => {
  const shared = path.join(dir, 'shared');
  fs.mkdirSync(shared);
  fs.chmodSync(shared, 0o1777);
  const token = path.join(shared, 'token');
  fs.writeFileSync(token, 'NEIGHBOURS-TOKEN\n');
  fs.chownSync(token, NOBODY, NOBODY);
  fs.chmodSync(token, 0o666);
  const kubeconfig = path.join(dir, 'config');
  const cluster = { server: 'https://127.0.0.1:1', 'insecure-skip-tls-verify': true };
  fs.writeFileSync(kubeconfig, single(cluster, { tokenFile: token }), { mode: 0o600 });
  const run = await read(kubeconfig);
  expect(run.code).toBe(1);
  expect(run.stderr).toContain(`user "u" in ${kubeconfig} tokenFile ${token} is owned by uid ${NOBODY}, not by you`);
});
