/**
 * `cdktf-homelab discover` against an estate that already runs: the fake PVE (3 nodes of networks, 5 metric
 * servers), the real systemd host (10 units, 2 of them templates with enabled instances, drop-ins, a masked unit,
 * a unit and a drop-in another stack marked, a unit an interrupted apply left with its intent) and the real
 * kube-apiserver (7 Repos, 2 marked by a stack). The stack it writes leaves out what a stack already manages and
 * each node's management bridge, type-checks, synthesizes, and its first plan shows no change to what any object
 * does (adoptions only); its first apply writes nothing the objects do.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { encodeBase64Json } from '../../src/pve/metric-fields';
import { type FakePve, startFakePve } from '../fakes/pve/server';
import { CdktfProject } from '../support/cdktf-project';
import { useKubeApiServer } from '../support/kube-apiserver';
import { crPath } from '../support/kube-crds';
import { kubeExpect } from '../support/kube-http';
import { startSystemdHost, type SystemdHost } from '../support/systemd-host';
import { testProcessEnv } from '../support/toolchain';
import { makeCert, type TestCert } from '../support/tls';
import { CLONE_SECRET, ESTATE_REPOS, ESTATE_UNITS, METRIC_SERVERS, nodeInterfaces } from './discover-estate';

jest.setTimeout(600_000);

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const TOKEN = 'root@pam!homelab=discover-secret';
/** Discover only reads: it runs with the read token alone, which may not write. */
const READ_TOKEN = 'audit@pve!reader=discover-read-secret';
const HEADERS = { Authorization: 'Bearer otel-discover-SECRET' };
const NODES = ['n1', 'n2', 'n3'];

const server = useKubeApiServer();
let fake: FakePve;
let host: SystemdHost;
let cert: TestCert;
let dir: string;
let project: CdktfProject;
let discovered: { stdout: string; stderr: string };
let env: NodeJS.ProcessEnv;

/** What the objects do on the host: each unit file's digest and each unit's state and invocation. */
const hostState = async (): Promise<string> =>
  (
    await host.exec(
      'cd /etc/systemd/system && sha256sum disc-* disc-*.d/* ssh.service.d/* 2>/dev/null; ' +
        'systemctl show -p Id,ActiveState,InvocationID,UnitFileState disc-* "disc-probe@*" "disc-agent@*" ssh.service',
    )
  ).stdout;
const repoSpecs = async (namespace: string) =>
  (
    await kubeExpect<{ items: Array<{ metadata: { name: string }; spec: unknown }> }>(
      server().admin,
      'GET',
      crPath(namespace, 'repos'),
    )
  ).items.map((item) => [item.metadata.name, item.spec]);

/** Each object's reading at plan time, from the batch reads' results in the saved plan. */
const planReadings = async (): Promise<Array<{ name: string; inSync: boolean; summary: string }>> => {
  const shown = await project.must('show plan', project.terraform('show', '-json', 'plan.bin'));
  const plan = JSON.parse(shown.stdout) as { prior_state?: { values?: { root_module?: { resources?: Resource[] } } } };
  const reads = (plan.prior_state?.values?.root_module?.resources ?? []).filter((r) => r.type === 'external');
  return reads.flatMap(({ values }) =>
    Object.keys(values.result)
      .filter((key) => key.endsWith('.in_sync') && !key.startsWith('.'))
      .map((key) => {
        const name = key.slice(0, -'.in_sync'.length);
        return { name, inSync: values.result[key] === 'true', summary: values.result[`${name}.summary`] ?? '' };
      }),
  );
};
/** The systemd host's address and pinned key as discover takes them. */
const hostArgs = () => [
  '--ssh-host',
  host.host,
  '--ssh-port',
  String(host.port),
  '--ssh-host-key',
  host.hostKeyFingerprint,
];
interface Resource {
  readonly type: string;
  readonly values: { readonly result: Record<string, string> };
}

beforeAll(async () => {
  cert = makeCert();
  fake = await startFakePve({
    tls: { key: cert.key, cert: cert.cert },
    tokens: {
      'root@pam!homelab': { secret: 'discover-secret', privileges: 'modify' },
      'audit@pve!reader': { secret: 'discover-read-secret', privileges: 'audit' },
    },
    nodes: NODES,
    network: Object.fromEntries(NODES.map((node, i) => [node, { running: nodeInterfaces(i) }])),
  });
  for (const [id, section] of Object.entries(METRIC_SERVERS(encodeBase64Json(HEADERS))))
    fake.setMetricServer(id, section);
  host = await startSystemdHost();
  for (const command of ESTATE_UNITS) {
    const done = await host.exec(command);
    if (done.code !== 0) throw new Error(`${command}: ${done.stderr}`);
  }
  const kube = server();
  for (const repo of ESTATE_REPOS) await kubeExpect(kube.admin, 'POST', crPath(kube.namespace, 'repos'), repo);
  await kubeExpect(kube.admin, 'POST', `/api/v1/namespaces/${kube.namespace}/secrets`, {
    metadata: { name: CLONE_SECRET },
    stringData: { username: 'git', password: 'clone-SECRET' },
  });
  dir = mkdtempSync(join(ROOT, 'build', 'discover-e2e-'));
  env = { ...testProcessEnv(), PVE_READ_TOKEN: READ_TOKEN, HOMELAB_SSH_KEY: host.privateKey };
  discovered = await discover('--out', join(dir, 'main.ts'));
});

/** `entry` of the discovered folder bundled as the examples are: the library from source, cdktf from node_modules. */
const bundleApp = (entry: string, outfile: string) =>
  build({
    entryPoints: [join(dir, entry)],
    outfile: join(dir, outfile),
    bundle: true,
    platform: 'node',
    packages: 'external',
    logLevel: 'error',
  });

/** `cdktf-homelab discover` on the estate, with `flags` first. */
const discover = (...flags: string[]) =>
  run(
    'node',
    [
      join(ROOT, 'build', 'cli', 'cdktf-homelab.js'),
      'discover',
      ...flags,
      '--import',
      relative(dir, join(ROOT, 'index')),
      '--pve-endpoint',
      fake.url,
      '--pve-ca-file',
      cert.certFile,
      '--pve-read-token-env',
      'PVE_READ_TOKEN',
      ...hostArgs(),
      '--ssh-private-key-env',
      'HOMELAB_SSH_KEY',
      '--unit-glob',
      'disc-*',
      '--unit-glob',
      'ssh.service',
      '--namespace',
      server().namespace,
      '--kubeconfig',
      server().kubeconfig,
      '--context',
      'admin',
    ],
    { env },
  );

afterAll(async () => {
  console.log(`discover e2e timings (s): ${project?.report()}`);
  await host?.stop();
  await fake?.stop();
  project?.cleanup();
  cert?.cleanup();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

test('discover declares every object, names the secrets and what it left out, and reads only', () => {
  const summary = discovered.stderr;
  expect(summary).toContain(
    'declared 31 objects, each adopt: true: 5 ProxmoxMetricServer, 6 ProxmoxNetworkInterface, 10 SystemdUnit, ' +
      '3 SystemdUnitInstance, 3 SystemdDropIn, 4 KubeRepo',
  );
  expect(summary).toContain('disc-hidden.service: masked');
  // Issue 27: each of these was declared adopt: true, and two stacks then fought over it.
  const ns = server().namespace;
  expect(summary).toContain(
    'left out 5, managed by a cdktf-homelab stack already (its mark is on the target: a second stack adopting it ' +
      'would fight the first; declare it in the stack that owns it):\n' +
      "  disc-half.service: an apply's intent /var/lib/cdktf-homelab/intents/disc-half.service is there " +
      '(that apply did not finish)\n' +
      '  disc-theirs.service: its restartOn record /var/lib/cdktf-homelab/restart-on/disc-theirs.service is there\n' +
      '  /etc/systemd/system/disc-web.service.d/30-theirs.conf: its mark ' +
      '/var/lib/cdktf-homelab/drop-ins/etc/systemd/system/disc-web.service.d/30-theirs.conf is there\n' +
      `  Repo ${ns}/tools: it carries the label core.jr2.dev/bound\n` +
      `  Repo ${ns}/wiki: it carries the label core.jr2.dev/bound\n`,
  );
  // Issue 27: each node's management bridge was adopted.
  for (const [i, node] of NODES.entries())
    expect(summary).toContain(
      `  interface vmbr0 on ${node}: it carries 10.0.0.${i + 1}, ${node}'s address in cluster/status`,
    );
  // Issue 27: declared without its secretRef, the first apply stripped it.
  expect(summary).toMatch(
    new RegExp(`  Repo ${ns}/mirror: its secretRef names the Secret clone-mirror, which is not in`),
  );
  expect(summary).toContain('note: PVE keeps no mark of ownership');
  expect(summary).toContain('PVE_METRIC_OTEL_OTEL_HEADERS: the headers as JSON');
  const text = readFileSync(join(dir, 'main.ts'), 'utf8');
  expect(text).toContain("readTokenEnv: 'PVE_READ_TOKEN',");
  expect(fake.requests.every((request) => request.auth === 'audit@pve!reader')).toBe(true);
  for (const secret of [
    'discover-secret',
    'discover-read-secret',
    'otel-discover-SECRET',
    encodeBase64Json(HEADERS),
    'influx-SECRET',
    'clone-SECRET',
  ]) {
    expect(`${text}${summary}`).not.toContain(secret);
  }
  expect(text.match(/^ {2}adopt: true,$/gm)).toHaveLength(31);
  for (const left of [
    "'disc-theirs.service'",
    "'disc-half.service'",
    "'30-theirs'",
    "key: 'wiki'",
    "key: 'tools'",
    "key: 'mirror'",
    "iface: 'vmbr0',",
  ])
    expect(text).not.toContain(left);
  expect(text).toMatch(/https: \{\n\s+secret: 'clone-vault',/);
  expect(text.match(/carries no bound label or identity annotation yet/g)).toHaveLength(4);
  expect(fake.requests.filter((request) => request.method !== 'GET')).toEqual([]);
});

test('the stack type-checks, synthesizes, and its first plan shows nothing but adoptions', async () => {
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: '../../tsconfig.json',
      compilerOptions: { noEmit: true, rootDir: '../..' },
      include: ['main.ts'],
    }),
  );
  await run('node', [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], { env });
  await bundleApp('main.ts', 'app.js');
  project = new CdktfProject(relative(ROOT, join(dir, 'app.js')), 'discovered', {
    PROXMOX_VE_API_TOKEN: TOKEN,
    PVE_READ_TOKEN: READ_TOKEN,
    HOMELAB_SSH_KEY: host.privateKey,
    PVE_METRIC_OTEL_OTEL_HEADERS: JSON.stringify(HEADERS),
    PVE_METRIC_INFLUX_TOKEN: 'influx-SECRET',
  });
  await project.must('synth', project.synth());
  await project.must('init', project.terraform('init', '-no-color'));
  const plan = await project.plan('plan (first)', '-out', 'plan.bin');
  expect(plan.code).toBe(2);
  // Adoption only: every reading that is not in sync says the object will be adopted (issue 18 item 2), and
  // nothing else differs but the marks a Repo's adoption writes.
  const marks = [
    'label core\\.jr2\\.dev/bound is unset, want "true"',
    'annotation core\\.jr2\\.dev/identity is unset, want "[^"]*"',
    // The stack's name, a mark too since issue 27 item 3 (README, Adoption: two stacks).
    'annotation core\\.jr2\\.dev/stack is unset, want "discovered"',
  ];
  const mark = `(; (${marks.join('|')}))`;
  const adoption = new RegExp(`not created by this stack: will be adopted${mark}*$`);
  const readings = await planReadings();
  expect(readings.length).toBe(31);
  expect(readings.filter(({ inSync, summary }) => !inSync && !adoption.test(summary))).toEqual([]);
});

// Issue 28 item 4: a JavaScript user needed tsx and typescript to run what discover wrote.
test('--language js writes the same stack in plain JavaScript: it synthesizes to the same Terraform', async () => {
  await discover('--language', 'js', '--out', join(dir, 'main.js'));
  expect(readFileSync(join(dir, 'main.js'), 'utf8')).toMatch(
    /^const \{ App, TerraformStack \} = require\('cdktf'\);$/m,
  );
  // Bundled as the TypeScript one is: no compiler runs over the JavaScript.
  await bundleApp('main.js', 'app-js.js');
  const js = new CdktfProject(relative(ROOT, join(dir, 'app-js.js')), 'discovered', {});
  try {
    await js.must('synth (js)', js.synth());
    // The same but for the state's path, which names each project's own folder.
    const synthesized = (p: CdktfProject) => {
      const json = JSON.parse(readFileSync(join(p.stackDir, 'cdk.tf.json'), 'utf8'));
      delete json.terraform.backend;
      return json;
    };
    expect(synthesized(js)).toEqual(synthesized(project));
  } finally {
    js.cleanup();
  }
});

test('the first apply changes nothing the objects do, and the next plan is clean', async () => {
  const before = {
    host: await hostState(),
    repos: await repoSpecs(server().namespace),
    requests: fake.requests.length,
  };
  await project.must('apply (first)', project.terraform('apply', '-auto-approve', '-no-color', 'plan.bin'));
  const writes = fake.requests.slice(before.requests).filter((request) => request.method !== 'GET');
  expect(writes).toEqual([]);
  expect(await hostState()).toBe(before.host);
  expect(await repoSpecs(server().namespace)).toEqual(before.repos);
  expect((await project.plan('plan (after apply)')).code).toBe(0);
});

test('a read login leaves out what it cannot read a mark of, and sees the intents', async () => {
  // After the apply every adopted unit and drop-in carries this stack's mark; the drop-ins' marks are made root-only.
  // Issue 27: a read identity without access to the mark directory read a stack's drop-in as nobody's.
  const made = await host.exec('useradd -M -s /bin/sh disc-reader && chmod 0700 /var/lib/cdktf-homelab/drop-ins');
  expect(made.code).toBe(0);
  const again = await run(
    'node',
    [
      join(ROOT, 'build', 'cli', 'cdktf-homelab.js'),
      'discover',
      '--out',
      '-',
      '--kinds',
      'systemd-unit,systemd-drop-in',
      ...hostArgs(),
      '--ssh-read-user',
      'disc-reader',
      '--ssh-read-private-key-env',
      'HOMELAB_SSH_KEY',
      '--unit-glob',
      'disc-*',
    ],
    { env },
  );
  const summary = again.stderr;
  // Intents are readable by a read login (issue 26): disc-half, whose only mark is its intent, is a stack's to it too.
  expect(summary).toContain('declared 0 objects');
  expect(again.stdout).not.toContain("name: 'disc-half.service'");
  expect(summary).toContain(
    "  disc-half.service: an apply's intent /var/lib/cdktf-homelab/intents/disc-half.service is there",
  );
  expect(summary).not.toContain('may not look into /var/lib/cdktf-homelab/intents');
  for (const dropIn of ['disc-web.service.d/10-env', 'disc-web.service.d/30-theirs', 'disc-probe@.service.d/20-nice'])
    expect(summary).toContain(
      `  /etc/systemd/system/${dropIn}.conf: its mark ` +
        `/var/lib/cdktf-homelab/drop-ins/etc/systemd/system/${dropIn}.conf ` +
        'is there but this login may not read it: whose it is cannot be told',
    );
  expect(summary).toContain(
    '  disc-web.service: its restartOn record /var/lib/cdktf-homelab/restart-on/disc-web.service is there',
  );
});
