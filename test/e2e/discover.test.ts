/**
 * `cdktf-homelab discover` against an estate that already runs: the fake PVE (3 nodes of networks, 5 metric
 * servers), the real systemd host (10 units, 2 of them templates with enabled instances, drop-ins, a masked unit,
 * a unit and a drop-in another stack marked, a unit an interrupted apply left with its intent) and the real
 * kube-apiserver (7 Repos, 2 marked by a stack). The stack it writes leaves out what a stack already manages and
 * each node's management bridge, type-checks, synthesizes, and its first plan shows no change to what any object
 * does (adoptions only); its first apply writes nothing the objects do.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { encodeBase64Json } from '../../src/pve/metric-fields';
import { CdktfProject } from '../support/cdktf-project';
import { HEADERS, NODES, READ_TOKEN, ROOT, run, TOKEN, useDiscoverEstate } from './discover-fixture';

jest.setTimeout(600_000);

// The estate, its first discover run and the helpers that read it (discover-fixture.ts); setProject hands the
// second test's project to afterAll, which reports its timings and cleans it up.
const estate = useDiscoverEstate();
const { server, parts, project: madeProject, setProject } = estate;
const { hostState, repoSpecs, planReadings, hostArgs, bundleApp, discover } = estate;

test('discover declares every object, names the secrets and what it left out, and reads only', () => {
  const { discovered, dir, fake } = parts();
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
  const { dir, env, host } = parts();
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
  const project = new CdktfProject(relative(ROOT, join(dir, 'app.js')), 'discovered', {
    PROXMOX_VE_API_TOKEN: TOKEN,
    PVE_READ_TOKEN: READ_TOKEN,
    HOMELAB_SSH_KEY: host.privateKey,
    PVE_METRIC_OTEL_OTEL_HEADERS: JSON.stringify(HEADERS),
    PVE_METRIC_INFLUX_TOKEN: 'influx-SECRET',
  });
  setProject(project);
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
  const { dir } = parts();
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
    expect(synthesized(js)).toEqual(synthesized(madeProject()));
  } finally {
    js.cleanup();
  }
});

test('the first apply changes nothing the objects do, and the next plan is clean', async () => {
  const { fake } = parts();
  const project = madeProject();
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
  const { env, host } = parts();
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
  expect(summary).toContain('declared no objects');
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
