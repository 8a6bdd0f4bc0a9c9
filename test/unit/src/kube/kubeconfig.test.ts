// Which kubeconfig files are read and how they merge, as kubectl does, and how a broken file is reported.
import { kubeconfigPaths, loadKubeconfig } from '../../../../src/kube/kubeconfig';
import { cluster, context, ioOf, kubeconfig, SECRET, single, user } from './kubeconfig-fixtures';

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

describe('a broken file', () => {
  test.each([
    ['YAML', `users:\n- name: u\n  user:\n    token: ${SECRET}\n    tokenFile: [\n`, 'at line 6, column 1'],
    ['JSON', `{"users": [{"name": "u", "user": {"token": "${SECRET}"}}]\n`, 'at line 2, column 1'],
  ])('broken %s is named by position, never by the text around it', (_, text, where) => {
    const load = () => loadKubeconfig({ kubeconfig: '/k' }, ioOf({ '/k': text }));
    expect(load).toThrow(new RegExp(`/k is not valid YAML ${where} \\(`));
    expect(load).not.toThrow(SECRET);
  });

  // Audit: a server with a password or a token in its query was refused later by the transport, printed whole.
  test.each([
    [`https://admin:${SECRET}@127.0.0.1:1`, 'carries a user or password'],
    [`https://${SECRET}@127.0.0.1:1`, 'carries a user or password'],
    [`https://127.0.0.1:1/?access_token=${SECRET}`, 'carries a query or fragment'],
    [`https://127.0.0.1:1/#${SECRET}`, 'carries a query or fragment'],
  ])('a server of %s is refused naming the cluster and the file, never the secret', (server, says) => {
    const load = () => loadKubeconfig({ kubeconfig: '/k' }, ioOf({ '/k': single({ server }, { token: 't' }) }));
    expect(load).toThrow(`cluster "c" in /k: server ${says}; remove it`);
    expect(load).not.toThrow(SECRET);
  });

  test('a malformed field is named by its path, never by its value', () => {
    const wrongType = single({ server: 'https://k' }, { token: SECRET, tokenFile: 7 });
    const load = () => loadKubeconfig({ kubeconfig: '/k' }, ioOf({ '/k': wrongType }));
    expect(load).toThrow('malformed field users.0.user.tokenFile: expected string');
    expect(load).not.toThrow(SECRET);
  });
});
