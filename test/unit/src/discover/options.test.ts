// discover's command line: target settings judged by their constructs' rules, every problem at once, named by flag.
import { parseOptions } from '../../../../src/discover/options';

const HOST_KEY = `SHA256:${'A'.repeat(43)}`;

test('all defaults: the targets as their constructs take them, every kind, main names', () => {
  const parsed = parseOptions(['--ssh-host', '10.0.0.2', '--ssh-host-key', HOST_KEY, '--namespace=jr2,lab']);
  expect(parsed).toEqual({
    options: {
      out: 'discovered.ts',
      force: false,
      stack: 'discovered',
      stackId: 'discovered',
      from: 'cdktf-homelab',
      language: 'ts',
      kinds: new Set([
        'metric-server',
        'network-interface',
        'systemd-unit',
        'systemd-instance',
        'systemd-drop-in',
        'kube-repo',
      ]),
      nodes: [],
      unitGlobs: [],
      includeManagement: false,
      ssh: { host: '10.0.0.2', hostKey: HOST_KEY },
      kube: { props: {}, namespaces: ['jr2', 'lab'], version: 'v1alpha1' },
    },
  });
});

test("--include-management asks for each node's management interface too", () => {
  const parsed = parseOptions(['--pve-endpoint', 'https://n1:8006', '--include-management']);
  expect(parsed).toMatchObject({ options: { includeManagement: true } });
});

test('repeated and comma-separated lists add up, pins are keyed by endpoint, numbers are numbers', () => {
  const parsed = parseOptions([
    '--pve-endpoint=https://n1:8006,https://n2:8006',
    '--pve-fingerprint',
    `https://n1:8006=${'AB:'.repeat(31)}AB`,
    '--pve-timeout-seconds',
    '10',
    '--node',
    'n1',
    '--node',
    'n2,n3',
    '--unit-glob',
    'hf-*',
    '--kinds',
    'metric-server',
  ]);
  expect(parsed).toMatchObject({
    options: {
      nodes: ['n1', 'n2', 'n3'],
      unitGlobs: ['hf-*'],
      kinds: new Set(['metric-server']),
      pve: {
        endpoints: ['https://n1:8006', 'https://n2:8006'],
        fingerprints: { 'https://n1:8006': `${'AB:'.repeat(31)}AB` },
        timeoutSeconds: 10,
      },
    },
  });
});

test('every problem is named at once by its flag, and a secret is asked for only as a variable name', () => {
  const parsed = parseOptions([
    '--pve-endpoint',
    'http://n1:8006',
    '--pve-token-env',
    'root@pam!x=SECRET',
    '--ssh-host',
    'a;b',
    '--ssh-port',
    'x',
    '--kinds',
    'vm',
    '--context',
    'home',
    '--bogus',
  ]);
  expect('problems' in parsed && parsed.problems).toEqual([
    expect.stringMatching(/^--bogus must be one of --out, /),
    expect.stringMatching(/^--kinds must be a list of metric-server, .* got "vm"/),
    expect.stringMatching(/^--pve-token-env must be /),
    expect.stringMatching(/^--pve-endpoint must be https:\/\/ URLs unless insecure is true/),
    expect.stringMatching(/^--ssh-host must be a host name or IP address, got "a;b"/),
    expect.stringMatching(/^--ssh-port must be an integer/),
    expect.stringMatching(/^--ssh-host-key must be set/),
    '--namespace must be given with the Kubernetes settings, got undefined',
  ]);
  expect(JSON.stringify(parsed)).not.toContain('SECRET');
});

test('the read identities are target props like the others', () => {
  const parsed = parseOptions([
    '--pve-endpoint=https://n1:8006',
    '--pve-read-token-env=PVE_READ',
    '--ssh-host=h',
    '--ssh-insecure-accept-any-host-key',
    '--ssh-read-user=auditor',
    '--ssh-read-private-key-env=READ_KEY',
    '--namespace=jr2',
    '--read-context=viewer',
  ]);
  expect(parsed).toMatchObject({
    options: {
      pve: { readTokenEnv: 'PVE_READ' },
      ssh: { readUser: 'auditor', readPrivateKeyEnv: 'READ_KEY' },
      kube: { props: { readContext: 'viewer' } },
    },
  });
});

test('with no target there is nothing to read', () => {
  expect(parseOptions([])).toEqual({
    problems: ['targets must be at least one of --pve-endpoint, --ssh-host, --namespace, got undefined'],
  });
});

test.each([
  [['--language', 'js'], 'js', 'discovered.js'],
  [['--out', 'stack/main.js'], 'js', 'stack/main.js'],
  [['--out', 'main.ts'], 'ts', 'main.ts'],
  [['--language', 'ts', '--out', 'app.js'], 'ts', 'app.js'],
])('%j writes %s to %s', (flags, language, out) => {
  const parsed = parseOptions(['--namespace', 'jr2', ...flags]);
  expect(parsed).toMatchObject({ options: { language, out } });
});

test('--language other than ts or js is refused, named', () => {
  expect(parseOptions(['--namespace', 'jr2', '--language', 'py'])).toEqual({
    problems: ['--language must be ts or js, got "py"'],
  });
});

test("--stack-id names the stack in its marks; by default it is the stack's construct id, which must be one", () => {
  const ssh = ['--ssh-host', '10.0.0.2', '--ssh-host-key', HOST_KEY];
  expect(parseOptions([...ssh, '--stack', 'lab west'])).toMatchObject({ options: { stackId: 'lab-west' } });
  expect(parseOptions([...ssh, '--stack-id', 'homelab-a'])).toMatchObject({ options: { stackId: 'homelab-a' } });
  expect(parseOptions([...ssh, '--stack-id', 'a b'])).toEqual({
    problems: [expect.stringMatching(/^--stack-id must be a stack identity \(1 to 63 .*got "a b"/)],
  });
});
