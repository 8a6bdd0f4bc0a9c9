/**
 * Read and write identities (issue 19 item 1): each target construct takes a read identity beside
 * the write one and refuses a wrong one (and a wrong `mint`) at synth; a plan's batch read and a
 * by-hand read connect as `read`, applies, batch applies and destroys as `write`; and each domain's
 * read connection names only the read identity's secret (PVE token variable, SSH login and key
 * variable, kubeconfig and context), so a plan never needs the write secret. Without a read
 * identity both roles get the one.
 */
import { Testing, TerraformStack } from 'cdktf';
import { KubeCluster } from '../../../constructs/kube/cluster';
import { SshHost } from '../../../constructs/linux/ssh-host';
import { ProxmoxCluster } from '../../../constructs/pve/cluster';
import { runHandler } from '../../../src/core/handler-cli';
import type { HandlerDomain, KindContext, Role } from '../../../src/core/kind';
import { systemClock } from '../../../src/core/clock';
import { kubeDomain } from '../../../handlers/kube/domain';
import { linuxDomain } from '../../../handlers/linux/domain';
import { pveDomain } from '../../../handlers/pve/domain';
import type { SshTarget } from '../../../src/linux/target';
import type { PveTarget } from '../../../src/pve/target';
import { destroyEnv } from '../../support/run-handler';
import { synthError } from '../constructs/synth-error';
import { widgetDomain, type WidgetWorld } from '../src/core/fake-domain';

const context: KindContext = { env: {}, log: () => undefined, clock: systemClock };

describe('the target constructs take a read identity', () => {
  test('each puts it in the target beside the write one, and leaves it out when not given', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const pve = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'], readTokenEnv: 'PVE_READ' });
    const host = new SshHost(stack, 'host', {
      host: 'h1',
      insecureAcceptAnyHostKey: true,
      user: 'deploy',
      privateKeyEnv: 'DEPLOY_KEY',
      readUser: 'watcher',
      readPrivateKeyEnv: 'WATCHER_KEY',
    });
    const kube = new KubeCluster(stack, 'kube', { context: 'admin', readContext: 'viewer' });
    expect(pve.target).toMatchObject({ tokenEnv: 'PROXMOX_VE_API_TOKEN', readTokenEnv: 'PVE_READ' });
    expect(host.target).toMatchObject({ user: 'deploy', readUser: 'watcher', readPrivateKeyEnv: 'WATCHER_KEY' });
    expect(kube.target).toMatchObject({ context: 'admin', readContext: 'viewer' });
    const plain = new ProxmoxCluster(stack, 'plain', { endpoints: ['https://n1:8006'] });
    expect(Object.keys(plain.target)).toEqual(['endpoints', 'tokenEnv']);
  });

  test('a wrong read identity is refused at synth naming the construct, the prop and the rule', () => {
    expect(
      synthError((s) => new ProxmoxCluster(s, 'pve', { endpoints: ['https://n1:8006'], readTokenEnv: 'a b' })),
    ).toBe(
      'test/pve: readTokenEnv must be the name of an environment variable (letters, digits and _, ' +
        'at most 64 characters), got a value of 3 characters (not shown: it may be a secret); ' +
        'pass the name of the variable that holds the secret, not the secret',
    );
    expect(
      synthError((s) => new SshHost(s, 'h', { host: 'h1', insecureAcceptAnyHostKey: true, readUser: 'not a user' })),
    ).toBe('test/h: readUser must be a user name, got "not a user"');
    const mint = { provisionUser: 'root@pam!tf', expireSeconds: 30 };
    expect(synthError((s) => new ProxmoxCluster(s, 'pve', { endpoints: ['https://n1:8006'], mint }))).toBe(
      '2 problems in 1 construct:\n' +
        'test/pve: mint.provisionUser must be a PVE user id such as cdktf-apply@pve, got "root@pam!tf"\n' +
        'test/pve: mint.expireSeconds must be an integer from 60 to 86400, got 30',
    );
    expect(synthError((s) => new KubeCluster(s, 'k', { inCluster: true, readContext: 'viewer' }))).toBe(
      'test/k: readContext must be left unset when inCluster is true (the pod has no kubeconfig), got "viewer"',
    );
  });
});

describe('which role each verb connects as', () => {
  const roles: Role[] = [];
  const recording = (world: WidgetWorld) => {
    const domain = widgetDomain(world);
    return {
      ...domain,
      connect: async (target, _ctx, role) => (roles.push(role), domain.connect(target)),
    } satisfies HandlerDomain<WidgetWorld, { shelf: string }>;
  };
  const run = async (argv: string[], stdin: string, env: NodeJS.ProcessEnv = {}) => {
    roles.length = 0;
    const world = { live: new Map([['w1', 1]]), calls: [] };
    const io = { stdin: async () => stdin, env, out: () => undefined, log: () => undefined };
    expect(await runHandler(recording(world), argv, io)).toBe(0);
    return [...roles];
  };
  const spec = '{"kind":"widget","spec":{"id":"w1","size":2}}';

  test('a plan reads as read; a by-hand read as read', async () => {
    expect(await run(['batch', 'read'], JSON.stringify({ '.target': '{"shelf":"a"}', one: spec }))).toEqual(['read']);
    expect(await run(['widget', 'read'], '{"target":{"shelf":"a"},"spec":{"id":"w1","size":2}}')).toEqual(['read']);
  });

  test('a batch apply, an apply and a destroy write as write', async () => {
    const hook = { HOMELAB_TARGET: '{"shelf":"a"}' };
    const batch = { ...hook, HOMELAB_DRIFTED: 'one', HOMELAB_OBJECT_0: spec };
    expect(await run(['batch', 'apply'], '', batch)).toEqual(['write']);
    expect(await run(['widget', 'apply'], '', { ...hook, HOMELAB_SPEC: '{"id":"w1","size":2}' })).toEqual(['write']);
    expect(await run(['widget', 'destroy'], '', destroyEnv({ shelf: 'a' }, { id: 'w1' }))).toEqual(['write']);
  });
});

describe("each domain's connection for a role", () => {
  const pveTarget: PveTarget = { endpoints: ['https://n1:8006'], tokenEnv: 'PVE_WRITE', readTokenEnv: 'PVE_READ' };

  test('PVE: a read uses the read token variable alone, a write the write one; one token serves both', async () => {
    const seen: PveTarget[] = [];
    const domain = pveDomain((target) => (seen.push(target), { close: async () => undefined }) as never);
    await domain.connect(pveTarget, context, 'read');
    await domain.connect(pveTarget, context, 'write');
    const { readTokenEnv: _, ...single } = pveTarget;
    await domain.connect(single, context, 'read');
    expect(seen.map((target) => JSON.stringify(target))).toEqual([
      '{"endpoints":["https://n1:8006"],"tokenEnv":"PVE_READ"}',
      '{"endpoints":["https://n1:8006"],"tokenEnv":"PVE_WRITE"}',
      '{"endpoints":["https://n1:8006"],"tokenEnv":"PVE_WRITE"}',
    ]);
  });

  test('SSH: a read logs in as the read user with its key and no sudo; a write as the privileged user', async () => {
    const target: SshTarget = {
      host: 'h1',
      port: 22,
      user: 'deploy',
      insecureAcceptAnyHostKey: true,
      privateKeyEnv: 'DEPLOY_KEY',
      readUser: 'watcher',
      readPrivateKeyEnv: 'WATCHER_KEY',
      readyTimeoutSeconds: 20,
      keepaliveIntervalSeconds: 15,
      sudo: true,
    };
    const logins: string[] = [];
    const domain = linuxDomain(async (login) => {
      logins.push(`${login.user} key ${login.privateKeyEnv} sudo ${login.sudo} read ${login.readUser}`);
      return { close: () => undefined } as never;
    });
    await domain.connect(target, context, 'read');
    await domain.connect(target, context, 'write');
    const { readUser: _, ...sameUser } = target;
    await domain.connect(sameUser, context, 'read');
    expect(logins).toEqual([
      'watcher key WATCHER_KEY sudo false read undefined',
      'deploy key DEPLOY_KEY sudo true read undefined',
      'deploy key WATCHER_KEY sudo true read undefined',
    ]);
  });

  test('Kubernetes: a read opens the read kubeconfig, a write the write one', async () => {
    const target = {
      name: 'home',
      kubeconfig: '/nowhere/write.kubeconfig',
      readKubeconfig: '/nowhere/read.kubeconfig',
      timeoutSeconds: 30,
    };
    await expect(kubeDomain().connect(target, context, 'read')).rejects.toThrow(/\/nowhere\/read\.kubeconfig/);
    await expect(kubeDomain().connect(target, context, 'write')).rejects.toThrow(/\/nowhere\/write\.kubeconfig/);
  });
});
