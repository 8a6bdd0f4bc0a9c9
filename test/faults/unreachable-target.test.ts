/**
 * Issue 16 item 8: a network-only stack whose cluster was unreachable planned creates with a
 * warning per object and exited 0. Each domain's batch read, fed the query `cdktf synth` writes,
 * against a closed port on 127.0.0.1: the plan fails in one line naming the target.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Testing, TerraformStack } from 'cdktf';
import { ProxmoxCluster, ProxmoxNetworkApply, renderUnit, SshHost, SystemdDropIn, SystemdUnit } from '../../index';
import { NetworkStack } from '../../examples/network';
import { MetricsStack } from '../../examples/metrics';
import { KubeStack } from '../../examples/kube';
import { kubeDomain } from '../../handlers/kube/domain';
import { linuxDomain } from '../../handlers/linux/domain';
import { pveDomain } from '../../handlers/pve/domain';
import { runHandler } from '../../src/core/handler-cli';
import type { HandlerDomain } from '../../src/core/kind';

/** A port nothing listens on: bound on 127.0.0.1, then closed. */
const closedPort = async (): Promise<number> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
};

/** The query of the stack's one batch read, as Terraform hands it to the handler. */
const readQuery = (stack: TerraformStack): Record<string, string> => {
  const external = JSON.parse(Testing.synth(stack)).data.external as Record<string, { query: Record<string, string> }>;
  const reads = Object.entries(external).filter(([name]) => name.endsWith('_read'));
  expect(reads).toHaveLength(1);
  return reads[0]![1].query;
};

/** `batch read` as the data source runs it: exit code, stdout and stderr lines. */
const batchRead = async <S, T>(domain: HandlerDomain<S, T>, query: object, env: NodeJS.ProcessEnv = {}) => {
  const [out, err]: [string[], string[]] = [[], []];
  const io = {
    stdin: async () => JSON.stringify(query),
    env,
    out: (s: string) => out.push(s),
    log: (l: string) => err.push(l),
  };
  const code = await runHandler(domain, ['batch', 'read'], io);
  return { code, out, err };
};

const app = () => Testing.app();
let port: number;
let dir: string;
beforeAll(async () => {
  port = await closedPort();
  dir = mkdtempSync(join(tmpdir(), 'homelab-unreachable-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const applyOnly = (endpoints: string[]) => {
  const stack = new TerraformStack(app(), 'apply');
  const cluster = new ProxmoxCluster(stack, 'pve', { endpoints, insecure: true });
  new ProxmoxNetworkApply(stack, 'net', { cluster, nodes: ['n2', 'n3'] });
  return stack;
};

describe('a PVE cluster on a closed port', () => {
  const endpoints = () => [`https://127.0.0.1:${port}`];
  const env = { PROXMOX_VE_API_TOKEN: 'root@pam!homelab=fake-secret-0000' };

  test.each<[string, () => TerraformStack]>([
    [
      'a network-only stack (interfaces and an apply)',
      () => new NetworkStack(app(), 'net', { endpoints: endpoints(), insecure: true }),
    ],
    ['a stack holding only a network apply', () => applyOnly(endpoints())],
    ['a metrics stack', () => new MetricsStack(app(), 'metrics', { endpoints: endpoints(), insecure: true })],
  ])('fails the read of %s in one line naming the member', async (_, stack) => {
    const run = await batchRead(pveDomain(), readQuery(stack()), env);
    expect(run).toMatchObject({ code: 1, out: [] });
    expect(run.err).toHaveLength(1);
    const member = `https://127\\.0\\.0\\.1:${port}`;
    expect(run.err[0]).toMatch(new RegExp(`^batch read: No PVE cluster member reachable: .* 1 members: ${member} \\(`));
  });
});

describe('a Kubernetes API server on a closed port', () => {
  test('fails the read of the Repos and the fetch ask in one line naming the server', async () => {
    const kubeconfig = join(dir, 'kubeconfig');
    const cluster = { server: `https://127.0.0.1:${port}`, 'insecure-skip-tls-verify': true };
    const config = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'lab', cluster }],
      users: [{ name: 'me', user: { token: 'not-a-secret' } }],
      contexts: [{ name: 'lab', context: { cluster: 'lab', user: 'me' } }],
      'current-context': 'lab',
    };
    writeFileSync(kubeconfig, JSON.stringify(config), { mode: 0o600 });
    const stack = new KubeStack(app(), 'kube', { kubeconfig, fetch: { sandbox: 'dev', trigger: 'v1' } });
    const run = await batchRead(kubeDomain(), readQuery(stack));
    expect(run).toMatchObject({ code: 1, out: [] });
    expect(run.err).toHaveLength(1);
    expect(run.err[0]).toMatch(new RegExp(`^batch read: .*127\\.0\\.0\\.1:${port}`));
  });
});

describe('an SSH host on a closed port', () => {
  test('fails the read of its units and drop-in in one line naming the host', async () => {
    const stack = new TerraformStack(app(), 'linux');
    const hostKey = `SHA256:${'A'.repeat(43)}`;
    const host = new SshHost(stack, 'node', { host: '127.0.0.1', port, user: 'root', hostKey, privateKeyEnv: 'K' });
    const content = renderUnit([{ name: 'Service', lines: [['ExecStart', '/bin/true']] }]);
    const unit = new SystemdUnit(stack, 'agent', { host, name: 'hf-agent.service', content });
    new SystemdDropIn(stack, 'level', { unit, name: '10-level', content });
    const key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' });
    const run = await batchRead(linuxDomain(), readQuery(stack), { K: String(key) });
    expect(run).toMatchObject({ code: 1, out: [] });
    expect(run.err).toHaveLength(1);
    expect(run.err[0]).toMatch(new RegExp(`^batch read: .*127\\.0\\.0\\.1:${port}`));
  });
});
