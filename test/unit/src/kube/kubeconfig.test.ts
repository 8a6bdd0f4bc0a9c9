import type { KubeconfigIo } from '../../../../src/kube/connection';
import { inClusterConnection } from '../../../../src/kube/in-cluster';
import { kubeconfigPaths, loadKubeconfig } from '../../../../src/kube/kubeconfig';

const PEM = (what: string) => `-----BEGIN ${what}-----\nMIIB\n-----END ${what}-----\n`;
const b64 = (s: string) => Buffer.from(s).toString('base64');
const SECRET = 'sekret-token-abc123';

/** A kubeconfig io over an in-memory file table. */
const ioOf = (files: Record<string, string>, env: Record<string, string> = {}): KubeconfigIo => ({
  env,
  home: '/home/me',
  readFile: (f) => (f in files ? Buffer.from(files[f]) : undefined),
});

const kubeconfig = (o: { current?: string; clusters?: object[]; users?: object[]; contexts?: object[] }) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    ...(o.current ? { 'current-context': o.current } : {}),
    clusters: o.clusters ?? [],
    users: o.users ?? [],
    contexts: o.contexts ?? [],
  });
const cluster = (name: string, body: object = {}) => ({ name, cluster: { server: `https://${name}:6443`, ...body } });
const user = (name: string, body: object = {}) => ({ name, user: body });
const context = (name: string, c: string, u?: string, ns?: string) => ({
  name,
  context: { cluster: c, ...(u ? { user: u } : {}), ...(ns ? { namespace: ns } : {}) },
});
const single = (c: object, u: object) =>
  kubeconfig({
    current: 'x',
    clusters: [{ name: 'c', cluster: c }],
    users: [{ name: 'u', user: u }],
    contexts: [context('x', 'c', 'u')],
  });

describe('which files are read', () => {
  test('an explicit path has ~ expanded and is the only file', () => {
    expect(kubeconfigPaths({ kubeconfig: '~/.kube/lab' }, { env: { KUBECONFIG: '/a' }, home: '/home/me' })).toEqual({
      explicit: true,
      files: ['/home/me/.kube/lab'],
    });
  });

  test('KUBECONFIG lists files in order, empty entries and repeats dropped', () => {
    expect(kubeconfigPaths({}, { env: { KUBECONFIG: '/a::/b:/a' }, home: '/h' })).toEqual({
      explicit: false,
      files: ['/a', '/b'],
    });
  });

  test('without KUBECONFIG the default is ~/.kube/config', () => {
    expect(kubeconfigPaths({}, { env: {}, home: '/h' }).files).toEqual(['/h/.kube/config']);
  });
});

describe('merging KUBECONFIG as kubectl does', () => {
  const a = kubeconfig({
    clusters: [cluster('shared', { 'tls-server-name': 'from-a' })],
    users: [user('me', { token: 'from-a' })],
    contexts: [context('shared', 'shared', 'me', 'ns-a')],
  });
  const b = kubeconfig({
    current: 'shared',
    clusters: [cluster('shared', { 'insecure-skip-tls-verify': true }), cluster('only-b')],
    users: [user('me', { token: 'from-b' })],
    contexts: [context('shared', 'only-b', 'me', 'ns-b'), context('b', 'only-b')],
  });
  const io = ioOf({ '/a': a, '/b': b }, { KUBECONFIG: '/missing:/a:/b' });

  test('the first file to set a name wins it whole, and current-context comes from the first file that has one', () => {
    const conn = loadKubeconfig({}, io);
    expect(conn).toMatchObject({
      origin: 'context "shared" in /a',
      server: 'https://shared:6443',
      tlsServerName: 'from-a',
      insecureSkipTlsVerify: false,
      namespace: 'ns-a',
      auth: { token: 'from-a' },
    });
  });

  test('an explicit context selects among the merged contexts; no user means no credential', () => {
    expect(loadKubeconfig({ context: 'b' }, io)).toMatchObject({
      server: 'https://only-b:6443',
      namespace: 'default',
      auth: {},
    });
  });

  test('a missing file in KUBECONFIG is skipped, an explicit missing file is an error', () => {
    expect(() => loadKubeconfig({ kubeconfig: '/missing' }, io)).toThrow('/missing does not exist');
    expect(() => loadKubeconfig({}, ioOf({}, { KUBECONFIG: '/x:/y' }))).toThrow(
      /no kubeconfig found \(looked for \/x, \/y\)/,
    );
  });

  test('an unknown context names the ones there are', () => {
    expect(() => loadKubeconfig({ context: 'nope' }, io)).toThrow(
      'context "nope" is not in /a:/b (available: "shared", "b")',
    );
  });

  test('no current-context and none asked for is an error naming the choices', () => {
    expect(() => loadKubeconfig({}, ioOf({ '/a': a }, { KUBECONFIG: '/a' }))).toThrow(
      /sets no current-context.*"shared"/,
    );
  });

  test('a context naming an undefined cluster or user is an error', () => {
    const bad = kubeconfig({
      current: 'x',
      clusters: [cluster('c')],
      contexts: [context('x', 'c', 'ghost'), context('y', 'nope')],
    });
    expect(() => loadKubeconfig({ kubeconfig: '/k' }, ioOf({ '/k': bad }))).toThrow('names user "ghost"');
    expect(() => loadKubeconfig({ kubeconfig: '/k', context: 'y' }, ioOf({ '/k': bad }))).toThrow(
      'names cluster "nope"',
    );
  });

  test('a name listed twice in one file is refused, as client-go refuses it', () => {
    const twice = kubeconfig({ clusters: [cluster('c'), cluster('c')] });
    expect(() => loadKubeconfig({ kubeconfig: '/k' }, ioOf({ '/k': twice }))).toThrow('lists cluster "c" twice');
  });

  test('YAML as kubectl writes it loads, null lists included', () => {
    const yaml = [
      'apiVersion: v1',
      'kind: Config',
      'preferences: {}',
      'current-context: home',
      'clusters:',
      '- name: home',
      '  cluster:',
      '    server: https://10.0.0.1:6443',
      '    insecure-skip-tls-verify: true',
      'contexts:',
      '- name: home',
      '  context:',
      '    cluster: home',
      'users: null',
      '',
    ].join('\n');
    expect(loadKubeconfig({ kubeconfig: '/k' }, ioOf({ '/k': yaml }))).toMatchObject({ insecureSkipTlsVerify: true });
  });
});

describe('the cluster', () => {
  const load = (c: object, files: Record<string, string> = {}) =>
    loadKubeconfig({ kubeconfig: '/etc/kube/config' }, ioOf({ '/etc/kube/config': single(c, {}), ...files }));

  test.each([
    ['certificate-authority-data', { 'certificate-authority-data': b64(PEM('CERTIFICATE')) }, {}],
    [
      'a relative certificate-authority file, read from beside the kubeconfig',
      { 'certificate-authority': 'ca.pem' },
      { '/etc/kube/ca.pem': PEM('CERTIFICATE') },
    ],
  ])('trusts %s', (_, c, files) => {
    const conn = load({ server: 'https://k:6443', ...c }, files);
    expect(conn.caPem?.toString()).toBe(PEM('CERTIFICATE'));
    expect(conn.insecureSkipTlsVerify).toBe(false);
  });

  test.each([
    [
      { server: 'https://k', 'certificate-authority-data': b64(PEM('C')), 'certificate-authority': '/ca' },
      'sets both certificate-authority-data and certificate-authority',
    ],
    [
      { server: 'https://k', 'certificate-authority-data': b64(PEM('C')), 'insecure-skip-tls-verify': true },
      'insecure-skip-tls-verify; keep one',
    ],
    [
      { server: 'https://k', 'certificate-authority': 'gone.pem' },
      'certificate-authority file /etc/kube/gone.pem does not exist',
    ],
    [
      { server: 'https://k', 'certificate-authority-data': b64('not pem') },
      'certificate-authority-data is not base64 of PEM',
    ],
    [{ server: 'https://k', 'proxy-url': 'http://proxy:3128' }, 'sets proxy-url, which this library does not support'],
    [{}, 'cluster "c" in /etc/kube/config has no server'],
    [{ server: 'k:6443' }, 'server must be http(s)://'],
  ])('refuses %j', (c, message) => {
    expect(() => load(c)).toThrow(message);
  });

  test('tls-server-name is passed on; insecure-skip-tls-verify is false unless the file says true', () => {
    expect(load({ server: 'https://10.0.0.1:6443', 'tls-server-name': 'api.lab' })).toMatchObject({
      tlsServerName: 'api.lab',
      insecureSkipTlsVerify: false,
    });
  });
});

describe('the user', () => {
  const load = (u: object, files: Record<string, string> = {}) =>
    loadKubeconfig(
      { kubeconfig: '/etc/kube/config' },
      ioOf({ '/etc/kube/config': single({ server: 'https://k' }, u), ...files }),
    );

  test('a client certificate and key from data or from files beside the kubeconfig', () => {
    const files = { '/etc/kube/me.crt': PEM('CERTIFICATE'), '/etc/kube/me.key': PEM('PRIVATE KEY') };
    const fromFiles = load({ 'client-certificate': 'me.crt', 'client-key': 'me.key' }, files).auth.clientCert;
    const fromData = load({
      'client-certificate-data': b64(PEM('CERTIFICATE')),
      'client-key-data': b64(PEM('PRIVATE KEY')),
    }).auth.clientCert;
    for (const cert of [fromFiles, fromData]) {
      expect(cert?.certPem.toString()).toBe(PEM('CERTIFICATE'));
      expect(cert?.keyPem.toString()).toBe(PEM('PRIVATE KEY'));
    }
  });

  test('a token, and a tokenFile resolved beside the kubeconfig that wins over a token next to it', () => {
    expect(load({ token: SECRET }).auth).toEqual({ token: SECRET });
    expect(load({ token: SECRET, tokenFile: 'tok' }).auth).toEqual({ tokenFile: '/etc/kube/tok' });
  });

  test.each([
    [
      { 'auth-provider': { name: 'oidc', config: { 'id-token': SECRET } } },
      'uses the auth-provider, which kubectl removed in 1.26',
    ],
    [{ username: 'admin', password: SECRET }, 'uses basic auth (username/password)'],
    [{ token: SECRET, as: 'root' }, 'uses impersonation'],
    [{ 'client-certificate-data': b64(PEM('CERTIFICATE')) }, 'sets only one of the client certificate and key'],
    [
      {
        token: SECRET,
        exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'x', interactiveMode: 'Never' },
      },
      'sets an exec plugin beside a token',
    ],
  ])('refuses %j without printing its secrets', (u, message) => {
    expect(() => load(u)).toThrow(message);
    expect(() => load(u)).not.toThrow(SECRET);
  });

  test.each([
    ['YAML', `users:\n- name: u\n  user:\n    token: ${SECRET}\n    tokenFile: [\n`, 'at line 6, column 1'],
    ['JSON', `{"users": [{"name": "u", "user": {"token": "${SECRET}"}}]\n`, 'at line 2, column 1'],
  ])('broken %s is named by position, never by the text around it', (_, text, where) => {
    const load = () => loadKubeconfig({ kubeconfig: '/k' }, ioOf({ '/k': text }));
    expect(load).toThrow(new RegExp(`/k is not valid YAML ${where} \\(`));
    expect(load).not.toThrow(SECRET);
  });

  test('a malformed field is named by its path, never by its value', () => {
    const wrongType = single({ server: 'https://k' }, { token: SECRET, tokenFile: 7 });
    const load = () => loadKubeconfig({ kubeconfig: '/k' }, ioOf({ '/k': wrongType }));
    expect(load).toThrow('malformed field users.0.user.tokenFile: expected string');
    expect(load).not.toThrow(SECRET);
  });
});

describe('exec plugins in the kubeconfig', () => {
  const load = (exec: object, c: object = { server: 'https://k' }) =>
    loadKubeconfig({ kubeconfig: '/etc/kube/config' }, ioOf({ '/etc/kube/config': single(c, { exec }) })).auth.exec;
  const V1 = 'client.authentication.k8s.io/v1';

  test('a bare command stays for PATH, one with a slash resolves beside the kubeconfig', () => {
    expect(load({ apiVersion: V1, command: 'aws', args: ['eks'], interactiveMode: 'Never' })).toMatchObject({
      command: 'aws',
      args: ['eks'],
    });
    expect(load({ apiVersion: V1, command: './bin/tok', interactiveMode: 'IfAvailable' })?.command).toBe(
      '/etc/kube/bin/tok',
    );
  });

  test('provideClusterInfo hands the plugin the cluster in ExecCredential field names', () => {
    const ca = b64(PEM('CERTIFICATE'));
    const exec = load(
      { apiVersion: V1, command: 'x', interactiveMode: 'Never', provideClusterInfo: true },
      { server: 'https://k', 'certificate-authority-data': ca, 'tls-server-name': 'api' },
    );
    expect(exec?.cluster).toEqual({ server: 'https://k', 'tls-server-name': 'api', 'certificate-authority-data': ca });
  });

  test.each([
    [{ apiVersion: V1, command: 'x' }, 'exec needs interactiveMode'],
    [{ apiVersion: V1, command: 'x', interactiveMode: 'Always' }, 'Always needs a terminal'],
    [
      { apiVersion: 'client.authentication.k8s.io/v1alpha1', command: 'x', interactiveMode: 'Never' },
      'apiVersion must be one of',
    ],
    [{ apiVersion: V1, interactiveMode: 'Never' }, 'exec has no command'],
  ])('refuses %j', (exec, message) => {
    expect(() => load(exec)).toThrow(message);
  });

  test('v1beta1 may leave interactiveMode out (it defaults to IfAvailable there)', () => {
    expect(load({ apiVersion: 'client.authentication.k8s.io/v1beta1', command: 'x' })?.apiVersion).toBe(
      'client.authentication.k8s.io/v1beta1',
    );
  });
});

describe('in-cluster config', () => {
  const sa = '/var/run/secrets/kubernetes.io/serviceaccount';
  const files = { [`${sa}/ca.crt`]: PEM('CERTIFICATE'), [`${sa}/token`]: SECRET, [`${sa}/namespace`]: 'jr2\n' };

  test('server from the service env, CA and namespace from the mounted account, the token file re-read on use', () => {
    const conn = inClusterConnection(
      ioOf(files, { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' }),
    );
    expect(conn).toMatchObject({
      server: 'https://[fd00::1]:443',
      namespace: 'jr2',
      auth: { tokenFile: `${sa}/token` },
    });
    expect(conn.caPem?.toString()).toBe(PEM('CERTIFICATE'));
  });

  test('outside a pod it says so instead of guessing', () => {
    expect(() => inClusterConnection(ioOf(files))).toThrow(
      'KUBERNETES_SERVICE_HOST or KUBERNETES_SERVICE_PORT is unset',
    );
    const env = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };
    expect(() => inClusterConnection(ioOf({ [`${sa}/ca.crt`]: 'x' }, env))).toThrow('automountServiceAccountToken');
  });
});
