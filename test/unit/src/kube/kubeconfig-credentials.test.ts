// What the selected cluster and user resolve to: trust, credentials and exec plugins, and what is refused.
import { loadKubeconfig } from '../../../../src/kube/kubeconfig';
import { b64, ioOf, PEM, SECRET, single } from './kubeconfig-fixtures';

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
