/**
 * The connection pool of one endpoint. A socket is handed to a request only after the endpoint's
 * TLS rule held (CA, pinned SHA-256 fingerprint, or explicit insecure) within the connect
 * deadline, so a refused connect, a failed handshake or a pin mismatch ends before any byte of a
 * request (and its credential) is written, and is known for certain to be "never sent".
 */
import { Agent, type AgentOptions, type ClientRequestArgs } from 'node:http';
import { isIP, connect as netConnect, type Socket } from 'node:net';
import { checkServerIdentity, connect as tlsConnect, type PeerCertificate, TLSSocket } from 'node:tls';
import { displayFingerprint, normalizeFingerprint } from './endpoint';

/** How one endpoint's certificate is trusted. With none of these set: the system's CAs. */
export interface TlsRule {
  /** PEM of the CA(s) to trust instead of the system's. */
  readonly ca?: string | Buffer;
  /** The one certificate to accept, whoever signed it (SHA-256, either notation). */
  readonly fingerprint?: string;
  /** Accept any certificate: only when the user asked for it. */
  readonly insecure?: boolean;
  /** A client certificate and key (PEM), for APIs that authenticate by certificate. */
  readonly cert?: string | Buffer;
  readonly key?: string | Buffer;
  /** The name the certificate must carry, and SNI sends, instead of the URL's host (kubeconfig `tls-server-name`).
   * It only moves the identity check: the chain to `ca` (or the pin) is checked as without it. */
  readonly serverName?: string;
}

/** Request options with the one `createConnection` reads besides host and port: this attempt's connect deadline. */
export interface ConnectOptions extends ClientRequestArgs {
  readonly connectMs?: number;
}

type Done = (error: Error | null, socket: Socket) => void;

const neverSent = new WeakSet<object>();

/** Whether an error was raised before its request had a socket: nothing of it was sent. */
export const wasNeverSent = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && neverSent.has(error);

const DEFAULT_CONNECT_MS = 30_000;

/** A keep-alive pool for one endpoint whose sockets are opened, and checked, by `createConnection`. */
export class EndpointAgent extends Agent {
  private readonly opening = new Set<Socket>();

  constructor(
    private readonly secure: boolean,
    private readonly tls: TlsRule,
    options: AgentOptions = {},
  ) {
    super({ keepAlive: true, ...options });
    // http.request checks the URL's protocol against its agent's; TLS is done here, not by https.Agent.
    Object.assign(this, { protocol: secure ? 'https:' : 'http:', defaultPort: secure ? 443 : 80 });
  }

  // Node's Agent calls this with a callback and waits for it when nothing is returned.
  override createConnection(options: ConnectOptions, done?: Done): undefined {
    const host = String(options.host ?? 'localhost').replace(/^\[|\]$/g, '');
    const port = Number(options.port);
    const socket = this.secure ? tlsConnect(this.tlsOptions(host, port)) : netConnect({ host, port });
    this.opening.add(socket);
    const seconds = (options.connectMs ?? DEFAULT_CONNECT_MS) / 1000;
    let settled = false;
    const settle = () => {
      settled = true;
      clearTimeout(timer);
      this.opening.delete(socket);
    };
    // Stays attached on failure: a late error of the abandoned socket must not go unhandled.
    const fail = (error: Error) => {
      if (settled) return;
      settle();
      socket.destroy();
      neverSent.add(error);
      done?.(error, socket);
    };
    const timer = setTimeout(
      () => fail(timeoutError(`no ${this.secure ? 'TLS ' : ''}connection within ${seconds} s`)),
      seconds * 1000,
    );
    socket.on('error', fail);
    socket.once(this.secure ? 'secureConnect' : 'connect', () => {
      const mismatch = socket instanceof TLSSocket ? pinMismatch(socket, this.tls.fingerprint) : undefined;
      if (mismatch !== undefined) return fail(mismatch);
      settle();
      socket.off('error', fail); // from here the request that gets the socket handles its errors
      done?.(null, socket);
    });
    return undefined;
  }

  /** Closes pooled sockets and any still being opened, so a process can exit at once. */
  override destroy(): void {
    for (const socket of this.opening) socket.destroy();
    this.opening.clear();
    super.destroy();
  }

  private tlsOptions(host: string, port: number) {
    const { ca, cert, key, fingerprint, insecure, serverName } = this.tls;
    const name = serverName ?? host;
    return {
      host,
      port,
      // SNI carries names only; an IP address there is refused by Node and by RFC 6066. tls.connect checks the
      // certificate against `servername` when set, else `host`: a name set here is what the certificate must carry.
      ...(isIP(name) === 0 ? { servername: name } : {}),
      // An IP address given as the server name is not sent, but the certificate must still carry it.
      ...(serverName !== undefined && isIP(serverName) !== 0
        ? { checkServerIdentity: (_host: string, peer: PeerCertificate) => checkServerIdentity(serverName, peer) }
        : {}),
      ...(ca === undefined ? {} : { ca }),
      ...(cert === undefined ? {} : { cert }),
      ...(key === undefined ? {} : { key }),
      // A pin replaces the CA check (a PVE member's certificate is usually self-signed).
      rejectUnauthorized: !(insecure === true || fingerprint !== undefined),
      ALPNProtocols: ['http/1.1'],
    };
  }
}

/** The error for a pinned endpoint that offered another certificate, naming the one it offered. */
const pinMismatch = (socket: TLSSocket, pin: string | undefined): Error | undefined => {
  if (pin === undefined) return undefined;
  const offered = socket.getPeerCertificate()?.fingerprint256;
  if (offered !== undefined && normalizeFingerprint(offered) === normalizeFingerprint(pin)) return undefined;
  const shown = offered === undefined ? 'no certificate' : `certificate ${displayFingerprint(offered)}`;
  const error = new Error(`offered ${shown}, which is not the pinned ${displayFingerprint(pin)}`);
  return Object.assign(error, { code: 'ERR_HOMELAB_PIN_MISMATCH' });
};

const timeoutError = (message: string): Error => Object.assign(new Error(message), { code: 'ETIMEDOUT' });
