/**
 * One exchange with a server that answers in ways no request here asks for: each attempt settles within its
 * deadline, as a failure saying what came, so no handler waits on a promise nothing will settle.
 */
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { Endpoint } from '../../../../../src/core/http/request';

const LIMITS = { connectMs: 1000, answerMs: 1000, maxBodyBytes: 1024 };
const open: Array<{ server: Server; endpoint: Endpoint }> = [];

afterEach(async () => {
  for (const { server, endpoint } of open.splice(0)) {
    endpoint.close();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** An endpoint whose server writes `answer` once it has read a request, and keeps the connection open. */
const answering = async (answer: string): Promise<Endpoint> => {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => undefined);
    socket.once('data', () => socket.write(answer));
  });
  server.on('close', () => sockets.forEach((socket) => socket.destroy()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const endpoint = new Endpoint(`http://127.0.0.1:${port}`, { insecure: true });
  open.push({ server, endpoint });
  return endpoint;
};

// An audit (2026-12-05): without an `upgrade` listener the attempt never settled, and a handler whose event loop
// then drained exited 0 having done nothing (a kube apply and a destroy, recorded by Terraform as done).
test('a 101 answer fails the attempt at once as unanswered, naming what came', async () => {
  const endpoint = await answering(
    'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n',
  );
  const started = Date.now();
  const attempt = await endpoint.send({ method: 'PUT', path: 'api', headers: {} }, LIMITS);
  expect(attempt).toEqual({
    ok: false,
    failure: 'unanswered',
    reason: 'answered 101 Switching Protocols, a switch of protocol no request asks for',
  });
  expect(Date.now() - started).toBeLessThan(500);
});

test('headers that never end fail the attempt at its deadline', async () => {
  const endpoint = await answering('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n');
  const attempt = await endpoint.send({ method: 'GET', path: 'api', headers: {} }, LIMITS);
  expect(attempt).toEqual({ ok: false, failure: 'unanswered', reason: 'no complete answer within 1 s' });
});
