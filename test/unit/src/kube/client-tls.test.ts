/**
 * kubeconfig `tls-server-name` over real TLS handshakes with a local server at 127.0.0.1 whose certificate carries
 * names but not that address: the name is sent as SNI and is the one the certificate must carry, while the chain to
 * the configured CA is still checked.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { HandlerError } from '../../../../src/core/errors';
import { KubeClient } from '../../../../src/kube/client';
import type { KubeConnection } from '../../../../src/kube/connection';
import { makeCert, type TestCert } from '../../../support/tls';

let cert: TestCert;
let impostor: TestCert;
let server: Server;
let url: string;
/** The SNI each request arrived with (false or null: none sent). */
const sniSeen: Array<string | false | null> = [];

beforeAll(async () => {
  cert = makeCert(['DNS:api.lab', 'IP:10.9.8.7']);
  impostor = makeCert(['DNS:api.lab']); // the same name, another key: trusted only if the chain were skipped
  server = createServer({ key: cert.key, cert: cert.cert }, (req, res) => {
    sniSeen.push((req.socket as TLSSocket).servername);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ kind: 'Namespace', metadata: { name: 'default' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.close();
  cert.cleanup();
  impostor.cleanup();
});

const clients: KubeClient[] = [];
afterEach(() => clients.splice(0).forEach((c) => c.close()));

const client = (tlsServerName?: string, ca: TestCert = cert): KubeClient => {
  const connection: KubeConnection = {
    origin: 'context "lab" in /tmp/kubeconfig',
    server: url,
    caPem: Buffer.from(ca.cert),
    insecureSkipTlsVerify: false,
    ...(tlsServerName === undefined ? {} : { tlsServerName }),
    namespace: 'default',
    auth: { token: 'not-a-secret' },
  };
  const made = new KubeClient(connection, { timeoutMs: 5_000 });
  clients.push(made);
  return made;
};

const failure = async (kube: KubeClient): Promise<string> => {
  const error = await kube.get('/api/v1/namespaces/default').catch((e: unknown) => e);
  expect(error).toBeInstanceOf(HandlerError);
  return (error as HandlerError).oneLine();
};

describe('tls-server-name', () => {
  test('without it, a certificate that lacks 127.0.0.1 fails with an identity error naming the fix', async () => {
    const message = await failure(client());
    expect(message).toMatch(/^Kubernetes API unreachable: GET \/api\/v1\/namespaces\/default failed: /);
    expect(message).toContain("Hostname/IP does not match certificate's altnames: IP: 127.0.0.1");
    expect(message).toContain(
      'the certificate does not carry 127.0.0.1: point server at a name it carries, ' +
        'or set tls-server-name to one in context "lab" in /tmp/kubeconfig',
    );
  });

  test('with a name the certificate carries, the request succeeds and that name is sent as SNI', async () => {
    sniSeen.length = 0;
    await expect(client('api.lab').get('/api/v1/namespaces/default')).resolves.toMatchObject({ kind: 'Namespace' });
    expect(sniSeen).toEqual(['api.lab']);
  });

  test('with a name the certificate does not carry, it fails naming that tls-server-name', async () => {
    const message = await failure(client('other.lab'));
    expect(message).toContain("Hostname/IP does not match certificate's altnames: Host: other.lab.");
    expect(message).toContain('the certificate does not carry tls-server-name other.lab of context "lab"');
  });

  test('a matching name does not stand in for the chain: a certificate not signed by the CA still fails', async () => {
    const message = await failure(client('api.lab', impostor));
    expect(message).toMatch(/failed: self[- ]signed certificate/);
    expect(message).not.toContain('altnames');
  });

  test('an IP address as the name is checked against the certificate, though not sent as SNI', async () => {
    sniSeen.length = 0;
    await expect(client('10.9.8.7').get('/api/v1/namespaces/default')).resolves.toMatchObject({ kind: 'Namespace' });
    expect(sniSeen).toEqual([false]);
    expect(await failure(client('10.9.8.6'))).toContain('IP: 10.9.8.6 is not in the cert');
  });
});
