/**
 * The running estate test/e2e/discover.test.ts discovers, and the ways its tests look at it: the fake PVE, the
 * systemd host and the kube Repos and Secret built from discover-estate.ts, the first discover run over them, and
 * reads of what the objects do (host units, Repo specs, the plan's readings). One setup for all five tests, so each
 * test asserts on the same estate and the same run; the stack's project, made by the second test, is cleaned up here
 * even when a test fails (a leaked project holds Terraform's folders and providers under build/).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { encodeBase64Json } from '../../src/pve/metric-fields';
import { type FakePve, startFakePve } from '../fakes/pve/server';
import type { CdktfProject } from '../support/cdktf-project';
import { type KubeApiServer, useKubeApiServer } from '../support/kube-apiserver';
import { crPath } from '../support/kube-crds';
import { kubeExpect } from '../support/kube-http';
import { startSystemdHost, type SystemdHost } from '../support/systemd-host';
import { testProcessEnv } from '../support/toolchain';
import { makeCert, type TestCert } from '../support/tls';
import { CLONE_SECRET, ESTATE_REPOS, ESTATE_UNITS, METRIC_SERVERS, nodeInterfaces } from './discover-estate';

export const run = promisify(execFile);
export const ROOT = join(__dirname, '..', '..');
export const TOKEN = 'root@pam!homelab=discover-secret';
/** Discover only reads: it runs with the read token alone, which may not write. */
export const READ_TOKEN = 'audit@pve!reader=discover-read-secret';
export const HEADERS = { Authorization: 'Bearer otel-discover-SECRET' };
export const NODES = ['n1', 'n2', 'n3'];

/** What beforeAll started and the first discover run's output. */
export interface DiscoverParts {
  readonly fake: FakePve;
  readonly host: SystemdHost;
  readonly cert: TestCert;
  /** The folder discover writes into, under build/ so that its stack imports the library from source. */
  readonly dir: string;
  /** The process env of every command: the read token and the host's key. */
  readonly env: NodeJS.ProcessEnv;
  readonly discovered: { readonly stdout: string; readonly stderr: string };
}

interface Resource {
  readonly type: string;
  readonly values: { readonly result: Record<string, string> };
}

/** Starts the fake PVE and the systemd host with the estate's networks, metric servers and units. */
const startHosts = async (cert: TestCert) => {
  const fake = await startFakePve({
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
  const host = await startSystemdHost();
  for (const command of ESTATE_UNITS) {
    const done = await host.exec(command);
    if (done.code !== 0) throw new Error(`${command}: ${done.stderr}`);
  }
  return { fake, host };
};

/** What the objects do on the host: each unit file's digest and each unit's state and invocation. */
const hostStateOf = async (host: SystemdHost): Promise<string> =>
  (
    await host.exec(
      'cd /etc/systemd/system && sha256sum disc-* disc-*.d/* ssh.service.d/* 2>/dev/null; ' +
        'systemctl show -p Id,ActiveState,InvocationID,UnitFileState disc-* "disc-probe@*" "disc-agent@*" ssh.service',
    )
  ).stdout;
const repoSpecsOf = async (kube: KubeApiServer, namespace: string) =>
  (
    await kubeExpect<{ items: Array<{ metadata: { name: string }; spec: unknown }> }>(
      kube.admin,
      'GET',
      crPath(namespace, 'repos'),
    )
  ).items.map((item) => [item.metadata.name, item.spec]);

/** Each object's reading at plan time, from the batch reads' results in the saved plan. */
const planReadingsOf = async (
  project: CdktfProject,
): Promise<Array<{ name: string; inSync: boolean; summary: string }>> => {
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
const hostArgsOf = (host: SystemdHost) => [
  '--ssh-host',
  host.host,
  '--ssh-port',
  String(host.port),
  '--ssh-host-key',
  host.hostKeyFingerprint,
];

/** `entry` of the discovered folder bundled as the examples are: the library from source, cdktf from node_modules. */
const bundleIn = (dir: string, entry: string, outfile: string) =>
  build({
    entryPoints: [join(dir, entry)],
    outfile: join(dir, outfile),
    bundle: true,
    platform: 'node',
    packages: 'external',
    logLevel: 'error',
  });

/** `cdktf-homelab discover` on the estate, with `flags` first. */
const discoverOn = (kube: KubeApiServer, estate: Omit<DiscoverParts, 'discovered'>, ...flags: string[]) =>
  run(
    'node',
    [
      join(ROOT, 'build', 'cli', 'cdktf-homelab.js'),
      'discover',
      ...flags,
      '--import',
      relative(estate.dir, join(ROOT, 'index')),
      '--pve-endpoint',
      estate.fake.url,
      '--pve-ca-file',
      estate.cert.certFile,
      '--pve-read-token-env',
      'PVE_READ_TOKEN',
      ...hostArgsOf(estate.host),
      '--ssh-private-key-env',
      'HOMELAB_SSH_KEY',
      '--unit-glob',
      'disc-*',
      '--unit-glob',
      'ssh.service',
      '--namespace',
      kube.namespace,
      '--kubeconfig',
      kube.kubeconfig,
      '--context',
      'admin',
    ],
    { env: estate.env },
  );

/**
 * Registers the estate's beforeAll (which also runs discover once into a fresh folder under build/) and afterAll, and
 * returns accessors for use inside tests. `setProject` hands afterAll the stack's project to report and clean up.
 */
export const useDiscoverEstate = () => {
  const server = useKubeApiServer();
  let cert: TestCert | undefined;
  let fake: FakePve | undefined;
  let host: SystemdHost | undefined;
  let dir: string | undefined;
  let started: DiscoverParts | undefined;
  let project: CdktfProject | undefined;
  const parts = (): DiscoverParts => {
    if (started === undefined) throw new Error('the discover estate is not up yet (use it inside a test)');
    return started;
  };
  const projectOf = (): CdktfProject => {
    if (project === undefined) throw new Error('no project yet: the second test makes it');
    return project;
  };

  beforeAll(async () => {
    cert = makeCert();
    ({ fake, host } = await startHosts(cert));
    const kube = server();
    for (const repo of ESTATE_REPOS) await kubeExpect(kube.admin, 'POST', crPath(kube.namespace, 'repos'), repo);
    await kubeExpect(kube.admin, 'POST', `/api/v1/namespaces/${kube.namespace}/secrets`, {
      metadata: { name: CLONE_SECRET },
      stringData: { username: 'git', password: 'clone-SECRET' },
    });
    dir = mkdtempSync(join(ROOT, 'build', 'discover-e2e-'));
    const env = { ...testProcessEnv(), PVE_READ_TOKEN: READ_TOKEN, HOMELAB_SSH_KEY: host.privateKey };
    const estate = { fake, host, cert, dir, env };
    started = { ...estate, discovered: await discoverOn(kube, estate, '--out', join(dir, 'main.ts')) };
  });

  afterAll(async () => {
    console.log(`discover e2e timings (s): ${project?.report()}`);
    await host?.stop();
    await fake?.stop();
    project?.cleanup();
    cert?.cleanup();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  return {
    server,
    parts,
    project: projectOf,
    setProject: (made: CdktfProject) => {
      project = made;
    },
    hostState: () => hostStateOf(parts().host),
    repoSpecs: (namespace: string) => repoSpecsOf(server(), namespace),
    planReadings: () => planReadingsOf(projectOf()),
    hostArgs: () => hostArgsOf(parts().host),
    bundleApp: (entry: string, outfile: string) => bundleIn(parts().dir, entry, outfile),
    discover: (...flags: string[]) => discoverOn(server(), parts(), ...flags),
  };
};
