/**
 * Issue 29 item 1 for the targets: a ProxmoxCluster, an SshHost and a KubeCluster are each one declaration
 * (CLUSTER_FIELDS with MINT_FIELDS, SSH_HOST_FIELDS, KUBE_CLUSTER_FIELDS), from which API.md's props tables (their
 * defaults too), the target the construct synthesizes and the handler boundary's schema come. A field dropped from
 * one form fails here by name; so does a target that starts writing a default no earlier version wrote.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Testing, TerraformStack } from 'cdktf';
import type { z } from 'zod/mini';
import { KubeCluster } from '../../../../constructs/kube/cluster';
import { KubeRepo } from '../../../../constructs/kube/kube-repo';
import { SshHost } from '../../../../constructs/linux/ssh-host';
import { SystemdUnit } from '../../../../constructs/linux/systemd-unit';
import { ProxmoxCluster } from '../../../../constructs/pve/cluster';
import { ProxmoxMetricServer } from '../../../../constructs/pve/metric-server';
import type { Fields } from '../../../../src/core/fields';
import { parseAs } from '../../../../src/core/parse';
import { KUBE_CLUSTER_FIELDS, kubeTargetSchema } from '../../../../src/kube/target';
import { SSH_HOST_FIELDS, sshTargetSchema } from '../../../../src/linux/target';
import { MINT_FIELDS } from '../../../../src/pve/mint-settings';
import { CLUSTER_FIELDS, pveTargetSchema } from '../../../../src/pve/target';

const ROOT = join(__dirname, '..', '..', '..', '..');
const KEY = `SHA256:${'A'.repeat(43)}`;
const PIN = 'AA:'.repeat(31) + 'AA';

/** The rows API.md's table for `name` has: each prop and its default column. */
const documented = (name: string): Map<string, string> => {
  const api = readFileSync(join(ROOT, 'API.md'), 'utf8');
  const section = api.split(`## ${name}\n`)[1]?.split('\n## ')[0] ?? '';
  return new Map([...section.matchAll(/^\| `(\w+)` \| `[^`]*` \| ([^|]*) \|/gm)].map((m) => [m[1] ?? '', m[2] ?? '']));
};

const propsOf = (fields: Fields) => Object.keys(fields).filter((prop) => fields[prop]?.prop !== false);
const inTarget = (fields: Fields) => Object.keys(fields).filter((prop) => fields[prop]?.spec !== undefined);
const unwritten = (fields: Fields) =>
  Object.entries(fields).flatMap(([prop, field]) => ('written' in field && field.written === false ? [prop] : []));

/** A target construct declared by `declare` with one object on it, and the target its batch hands the handler. */
const synthesized = (label: string, declare: (stack: TerraformStack) => void): Record<string, unknown> => {
  const stack = new TerraformStack(Testing.app(), 'test');
  declare(stack);
  const json = JSON.parse(Testing.synth(stack));
  return JSON.parse(json.resource.terraform_data[`${label}_apply`].input.target);
};

const pve = (props: ConstructorParameters<typeof ProxmoxCluster>[2]) =>
  synthesized('pve', (stack) => {
    const cluster = new ProxmoxCluster(stack, 'pve', props);
    new ProxmoxMetricServer(stack, 'm', { cluster, id: 'influx', type: 'influxdb', server: '10.0.0.5', port: 8089 });
  });

const ssh = (props: ConstructorParameters<typeof SshHost>[2]) =>
  synthesized('h', (stack) => {
    const host = new SshHost(stack, 'h', props);
    new SystemdUnit(stack, 'u', { host, name: 'a.service', content: '[Service]\nExecStart=/bin/true\n' });
  });

const kube = (props: ConstructorParameters<typeof KubeCluster>[2]) =>
  synthesized('home', (stack) => {
    const cluster = new KubeCluster(stack, 'home', props);
    new KubeRepo(stack, 'it', {
      cluster,
      namespace: 'jr2',
      key: 'site',
      url: 'https://git.example/site.git',
      identity: 'git.example/site',
    });
  });

/** Every prop set, none to its default, in as many targets as the rules across props need (one excludes another). */
const FULL: ReadonlyArray<[string, Fields, z.ZodMiniType, Array<() => Record<string, unknown>>]> = [
  [
    'ProxmoxClusterProps',
    CLUSTER_FIELDS,
    pveTargetSchema,
    [
      () =>
        pve({
          endpoints: ['https://n1:8006', 'https://n2:8006'],
          tokenEnv: 'PVE_WRITE',
          readTokenEnv: 'PVE_READ',
          mint: { provisionUser: 'cdktf-apply@pve', readUser: 'cdktf-plan@pve', expireSeconds: 600 },
          caFile: '/etc/pve/ca.pem',
          fingerprints: { 'https://n1:8006': PIN },
          timeoutSeconds: 12,
        }),
      () => pve({ endpoints: ['http://n1:8006'], insecure: true }),
    ],
  ],
  [
    'SshHostProps',
    SSH_HOST_FIELDS,
    sshTargetSchema,
    [
      () =>
        ssh({
          host: 'n2',
          port: 2222,
          user: 'deploy',
          hostKey: KEY,
          privateKeyEnv: 'DEPLOY_KEY',
          readUser: 'watcher',
          readPrivateKeyEnv: 'WATCHER_KEY',
          readyTimeoutSeconds: 5,
          keepaliveIntervalSeconds: 3,
          commandTimeoutSeconds: 9,
        }),
      () => ssh({ host: 'n2', insecureAcceptAnyHostKey: true }),
    ],
  ],
  [
    'KubeClusterProps',
    KUBE_CLUSTER_FIELDS,
    kubeTargetSchema,
    [
      () =>
        kube({
          kubeconfig: '~/.kube/write',
          context: 'admin',
          readKubeconfig: '~/.kube/read',
          readContext: 'viewer',
          timeoutSeconds: 12,
        }),
      () => kube({ inCluster: true }),
    ],
  ],
];

describe('each target is one declaration', () => {
  test.each([
    ['ProxmoxClusterProps', CLUSTER_FIELDS],
    ['MintSettings', MINT_FIELDS],
    ['SshHostProps', SSH_HOST_FIELDS],
    ['KubeClusterProps', KUBE_CLUSTER_FIELDS],
  ])("API.md's %s lists every field a prop sets, each declared default as declared", (name, fields: Fields) => {
    const rows = documented(name);
    expect([...rows.keys()].sort()).toEqual(propsOf(fields).sort());
    for (const [prop, field] of Object.entries(fields)) {
      if (field.default !== undefined) expect([prop, rows.get(prop)]).toEqual([prop, JSON.stringify(field.default)]);
    }
  });

  test.each(FULL)(
    'the target of %s carries every field of the declaration and parses at the boundary as it is',
    (_, fields, schema, targets) => {
      const written = targets.map((target) => target());
      const keys = new Set(written.flatMap((target) => Object.keys(target)));
      expect([...keys].sort()).toEqual(inTarget(fields).sort());
      for (const target of written) expect(parseAs(schema, target, 'target')).toMatchObject(target);
    },
  );

  test.each([
    ['ProxmoxClusterProps', CLUSTER_FIELDS, pveTargetSchema, () => pve({ endpoints: ['https://n1:8006'] })],
    ['SshHostProps', SSH_HOST_FIELDS, sshTargetSchema, () => ssh({ host: 'n2', hostKey: KEY })],
    ['KubeClusterProps', KUBE_CLUSTER_FIELDS, kubeTargetSchema, () => kube({})],
  ] as const)(
    'all defaults: %s writes the defaults earlier versions wrote, and the boundary fills in the others',
    (_, fields: Fields, schema: z.ZodMiniType, target) => {
      const written = target();
      const parsed = parseAs(schema, written, 'target');
      for (const [prop, field] of Object.entries(fields)) {
        if (field.default === undefined) continue;
        const late = unwritten(fields).includes(prop);
        expect([prop, written[prop]]).toEqual([prop, late ? undefined : field.default]);
        expect([prop, (parsed as Record<string, unknown>)[prop]]).toEqual([prop, field.default]);
      }
    },
  );

  test('a target written before commandTimeoutSeconds and the PVE timeout existed stays without them', () => {
    expect(ssh({ host: 'n2', hostKey: KEY })).toEqual({
      host: 'n2',
      port: 22,
      user: 'root',
      hostKey: KEY,
      readyTimeoutSeconds: 20,
      keepaliveIntervalSeconds: 15,
      sudo: false,
    });
    expect(pve({ endpoints: ['https://n1:8006'], insecure: false })).toEqual({
      endpoints: ['https://n1:8006'],
      tokenEnv: 'PROXMOX_VE_API_TOKEN',
    });
    expect(kube({ inCluster: false })).toEqual({ name: 'home' });
  });

  test.each([
    ['a PVE target', pveTargetSchema, { endpoints: ['https://n1:8006'], tokenEnv: 'T', extra: 1 }],
    ['an SSH target', sshTargetSchema, { host: 'h', hostKey: KEY, extra: 1 }],
    ['a Kubernetes target', kubeTargetSchema, { name: 'home', extra: 1 }],
  ] as const)('%s refuses a stray field', (what, schema: z.ZodMiniType, target) => {
    expect(() => parseAs(schema, target, 'target')).toThrow(`target.extra: is not a field of ${what}`);
  });
});
