// The simulator's socket side: one HTTP or HTTPS server on 127.0.0.1 (never the wildcard), a request body read
// whole, and a stop that closes hung and keep-alive connections too, so a test's `stop()` never waits on a client.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';

/** An HTTPS server with this key and certificate, or plain HTTP without them. */
export const serverFor = (
  tls: { readonly key: string; readonly cert: string } | undefined,
  listener: (req: IncomingMessage, res: ServerResponse) => void,
): Server => (tls ? createHttpsServer({ key: tls.key, cert: tls.cert }, listener) : createHttpServer(listener));

/** The request body as UTF-8 text. */
export const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
};

/** Listens on 127.0.0.1 and answers with the TCP port the kernel gave. */
export const listen = async (server: Server, port: number): Promise<number> => {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('fake PVE: listening, but on no TCP port');
  return address.port;
};

/** Closes the server and every connection it holds, hung requests and keep-alive sockets included. */
export const stopServer = (server: Server): Promise<void> =>
  new Promise<void>((resolve, reject) => {
    server.close((err) => (err ? reject(err) : resolve()));
    server.closeAllConnections();
  });
