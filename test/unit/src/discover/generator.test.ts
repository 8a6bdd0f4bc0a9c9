// The generator end to end without servers: live objects of every kind -> declarations -> TypeScript, run back
// through stub constructs, so what the file declares is compared with what was live, value for value.
import { run } from './run-stack';
import { sha256Hex } from '../../../../src/core/canonical';
import type { Discovered } from '../../../../src/discover/declaration';
import { parseListing } from '../../../../src/discover/host-listing';
import { kubeDeclarations } from '../../../../src/discover/kube';
import { pveDeclarations } from '../../../../src/discover/pve';
import { discoveredStack } from '../../../../src/discover/stack';
import { hostCandidates, statusEntries, systemdDeclarations } from '../../../../src/discover/systemd';
import type { LiveUnit } from '../../../../src/linux/unit-control';
import { encodeBase64Json } from '../../../../src/pve/metric-fields';

const HOSTILE = "x'); require('child_process').execSync('touch /tmp/pwned'); //\u2028\u202e";
const HEADERS = { Authorization: 'Bearer otel-SECRET-1' };

const pve = (): Discovered =>
  pveDeclarations(
    {
      cluster: { endpoints: ['https://n1:8006'], tokenEnv: 'PROXMOX_VE_API_TOKEN' },
      metricServers: [
        { id: 'graphite1', type: 'graphite', server: '10.0.0.5', port: 2003, path: 'pve', disable: 0 },
        // A token in a GET answer is a server that misbehaves: it is never written.
        {
          id: 'influx',
          type: 'influxdb',
          server: 'influx.lan',
          port: '8086',
          influxdbproto: 'https',
          token: 'tok-SECRET-2',
          bucket: HOSTILE,
        },
        {
          id: 'otel',
          type: 'opentelemetry',
          server: 'otel.lan',
          port: 4318,
          'otel-headers': encodeBase64Json(HEADERS),
        },
        { id: 'odd', type: 'statsd', server: 'x', port: 1 },
      ],
      networks: [
        {
          node: 'n1',
          rows: [
            { iface: 'eno1', type: 'eth' },
            {
              iface: 'vmbr0',
              type: 'bridge',
              bridge_ports: 'eno1',
              cidr: '10.0.0.1/24',
              autostart: 1,
              comments: 'lan\n',
            },
            { iface: 'vmbr0.40', type: 'vlan', cidr: '10.40.0.1/24', 'vlan-id': 40, 'vlan-raw-device': 'vmbr0' },
            { iface: 'bond0', type: 'bond', slaves: 'enp9s0', bond_mode: 'balance-rr' },
          ],
        },
      ],
    },
    new Set(),
  );

const file = (text: string) => Buffer.from(text).toString('base64');
const UNIT =
  '[Unit]\nDescription=agent\n[Service]\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=multi-user.target\n';
const TEMPLATE = UNIT.replace('agent', 'probe %i');

const listing = parseListing(
  [
    `F ${file('agent.service')} ${file(UNIT)}`,
    `F ${file('idle.service')} ${file(UNIT.replace('agent', HOSTILE))}`,
    `F ${file('probe@.service')} ${file(TEMPLATE)}`,
    `F ${file('shipped.service')} ${file(UNIT)}`,
    `F ${file('binary.service')} ${Buffer.from([0xff, 0xfe]).toString('base64')}`,
    `F ${file('ssh.service.d/10-limits.conf')} ${file('[Service]\nLimitNOFILE=4096\n')}`,
    `L ${file('multi-user.target.wants/probe@a.service')} ${file('/etc/systemd/system/probe@.service')}`,
    `L ${file('hidden.service')} ${file('/dev/null')}`,
    '@@cdktf-homelab:owned',
    file('/etc/systemd/system/shipped.service\n'),
  ].join('\n'),
);

const status = (activeState: string, unitFileState: string, subState = 'running'): LiveUnit['status'] => ({
  loadState: 'loaded',
  activeState,
  subState,
  unitFileState,
  needDaemonReload: false,
});

const host = (): Discovered => {
  const found = hostCandidates(listing, () => true);
  const live: LiveUnit[] = statusEntries(found).map((entry): LiveUnit => {
    const content =
      entry.file === undefined ? undefined : listing.files.get(entry.file.replace('/etc/systemd/system/', ''));
    const fileSha256 = content === undefined ? undefined : sha256Hex(content.toString('utf8'));
    const byUnit: Record<string, LiveUnit['status']> = {
      'agent.service': status('active', 'enabled'),
      'idle.service': status('inactive', 'disabled', 'dead'),
      'probe@.service': status('inactive', 'indirect', 'dead'),
      'probe@a.service': status('active', 'enabled'),
      'ssh.service': status('active', 'enabled'),
    };
    return { status: byUnit[entry.unit]!, fileSha256, restartOn: undefined };
  });
  return systemdDeclarations({ host: '10.0.0.2', hostKey: `SHA256:${'A'.repeat(43)}` }, found, live);
};

const repo = (name: string, url: string, extra: object = {}) => ({ metadata: { name }, spec: { url }, ...extra });
const kube = (): Discovered =>
  kubeDeclarations({
    cluster: { kubeconfig: '~/.kube/config', context: 'home' },
    clusterId: 'home',
    version: 'v1alpha1',
    secrets: new Set(),
    namespaces: [
      {
        namespace: 'jr2',
        repos: [
          repo('site', 'git@git.example:me/site.git', {
            spec: { url: 'git@git.example:me/site.git', secretRef: { name: 'deploy-key' } },
          }),
          { metadata: { name: 'docs' }, spec: { url: 'https://git.example/me/docs.git', refreshInterval: '1h' } },
          repo('leaky', 'https://kube-SECRET-3@git.example/me/leaky.git'),
        ],
      },
    ],
  });

test('every kind is declared from what was live, with adopt: true, and the file runs back to the same values', () => {
  const stack = discoveredStack([pve(), host(), kube()], {
    stack: 'lab',
    from: 'cdktf-homelab',
    language: 'ts',
    read: ['test'],
  });
  const made = run(stack.text);
  const objects = made.filter((m) => !['ProxmoxCluster', 'SshHost', 'KubeCluster'].includes(m.construct));
  expect(objects.map((m) => `${m.construct} ${m.id}`)).toEqual([
    'ProxmoxMetricServer graphite1',
    'ProxmoxMetricServer influx',
    'ProxmoxMetricServer otel',
    'ProxmoxNetworkInterface vmbr0-n1',
    'ProxmoxNetworkInterface vmbr0-40-n1',
    'SystemdUnit agent',
    'SystemdUnit idle',
    'SystemdUnit probe',
    'SystemdUnitInstance probe-a',
    'SystemdDropIn ssh-10-limits',
    'KubeRepo site',
    'KubeRepo docs',
  ]);
  expect(objects.every((m) => m.props.adopt === true)).toBe(true);
  const props = (id: string) => made.find((m) => m.id === id)!.props;
  expect(props('influx')).toMatchObject({ port: 8086, bucket: HOSTILE, tokenEnv: 'PVE_METRIC_INFLUX_TOKEN' });
  expect(props('otel')).toMatchObject({ otelHeadersEnv: 'PVE_METRIC_OTEL_OTEL_HEADERS' });
  expect(props('graphite1')).toMatchObject({ path: 'pve', disable: false });
  expect(props('vmbr0-n1')).toEqual(
    expect.objectContaining({ bridgePorts: ['eno1'], autostart: true, comments: 'lan' }),
  );
  expect(props('idle')).toMatchObject({ enabled: false, started: false, content: UNIT.replace('agent', HOSTILE) });
  expect(props('agent')).not.toHaveProperty('enabled');
  expect(props('probe-a')).toMatchObject({ instance: 'a' });
  expect(props('ssh-10-limits')).toMatchObject({ unit: 'ssh.service', content: '[Service]\nLimitNOFILE=4096\n' });
  expect(props('site')).toMatchObject({
    identity: 'git.example/me/site',
    credentials: [{ match: 'git.example/me/site', ssh: { secret: 'deploy-key' } }],
  });
  expect(props('docs')).toMatchObject({ identity: 'git.example/me/docs', refreshInterval: '1h' });
});

test('no secret a server answered reaches the file or the summary; the variables that hold them are named', () => {
  const stack = discoveredStack([pve(), host(), kube()], {
    stack: 'lab',
    from: 'cdktf-homelab',
    language: 'ts',
    read: ['test'],
  });
  const everything = `${stack.text}\n${stack.summary.join('\n')}`;
  for (const secret of ['SECRET-1', 'SECRET-2', 'SECRET-3', encodeBase64Json(HEADERS)])
    expect(everything).not.toContain(secret);
  expect(stack.text).toMatch(/\/\/ the InfluxDB token: write-only on PVE.*\n\s+tokenEnv: 'PVE_METRIC_INFLUX_TOKEN',/);
  expect(stack.summary).toContain('set before plan and apply:');
});

test('what is left out is named with why', () => {
  const stack = discoveredStack([pve(), host(), kube()], {
    stack: 'lab',
    from: 'cdktf-homelab',
    language: 'ts',
    read: ['test'],
  });
  const summary = stack.summary.join('\n');
  expect(summary).toContain('metric server "odd": its type "statsd" is not one this library manages');
  expect(summary).toMatch(/interface bond0 on n1: it would not read in sync: .*bond slave enp9s0 is not on n1/);
  expect(summary).toContain('hidden.service: masked');
  expect(summary).toContain('/etc/systemd/system/binary.service: not UTF-8 text');
  expect(summary).toMatch(/Repo jr2\/leaky: url must be .*\*\*\*@git.example/);
  expect(summary).not.toContain('shipped.service');
});

// Issue 28 item 4: a JavaScript user needed tsx and typescript to run what discover wrote.
test('--language js writes the same stack as plain JavaScript that runs as written, with require', () => {
  const parts = [pve(), host(), kube()];
  const ts = discoveredStack(parts, { stack: 'lab', from: 'cdktf-homelab', language: 'ts', read: ['test'] });
  const js = discoveredStack(parts, { stack: 'lab', from: 'cdktf-homelab', language: 'js', read: ['test'] });
  expect(js.text).not.toMatch(/^import /m);
  expect(js.text).toContain("const { App, TerraformStack } = require('cdktf');");
  expect(run(js.text, 'js')).toEqual(run(ts.text));
});

// Issue 27 item 3: the marks of its objects name the stack; the app sets the id only when it is not the stack id.
test('the app sets cdktf-homelab:stackId only when --stack-id differs from the stack id', () => {
  const parts = [host()];
  const same = discoveredStack(parts, { stack: 'lab', stackId: 'lab', from: 'x', language: 'ts', read: [] });
  expect(same.text).toContain('const app = new App();');
  const other = discoveredStack(parts, { stack: 'lab', stackId: 'homelab-a', from: 'x', language: 'ts', read: [] });
  expect(other.text).toContain("const app = new App({ context: { 'cdktf-homelab:stackId': 'homelab-a' } });");
  expect(other.text).toContain("const stack = new TerraformStack(app, 'lab');");
});
