/**
 * The plain data a Kubernetes HTTP client consumes (server, trust, identity), the file/env port it is loaded
 * through, and the per-request credential: a rotated tokenFile or an expired exec token is picked up without a
 * restart, and no secret in here ever reaches a message.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import { readBoundedFile, UnboundedFile } from '../core/bounded-file';
import { errorCode, HandlerError } from '../core/errors';
import { IrregularFile, readRegularFile } from '../core/regular-file';
import { execCredentialCache, type ExecPlugin, type ExecResult } from './exec-credential';
import { spawnExecRunner } from './exec-runner';
import type { PathFacts, TrustIo } from './file-trust';

/** Where a handler sends requests and how it proves who it is. `auth` holds secrets: never log it. */
export interface KubeConnection {
  /** For messages: `context "home" in /root/.kube/config`, or `in-cluster service account`. */
  readonly origin: string;
  readonly server: string;
  /** PEM bundle to trust; absent = the system's CAs. */
  readonly caPem?: Buffer;
  readonly insecureSkipTlsVerify: boolean;
  readonly tlsServerName?: string;
  readonly namespace: string;
  readonly auth: KubeAuth;
}

/** At most one of token / tokenFile / exec; a client certificate may come with a token, as in client-go. */
export interface KubeAuth {
  readonly clientCert?: ClientCert;
  readonly token?: string;
  /** Re-read on use: in-cluster and projected tokens rotate. */
  readonly tokenFile?: string;
  readonly exec?: ExecPlugin;
}

export interface ClientCert {
  readonly certPem: Buffer;
  readonly keyPem: Buffer;
}

/** The files and environment a connection is loaded from, and the owners and modes of the files that decide what a
 * handler runs or trusts (file-trust.ts); injectable so tests never touch $HOME or a pod. */
export interface KubeconfigIo extends TrustIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly home: string;
  /** The file's bytes, or undefined when it does not exist (other errors throw). */
  readFile(file: string): Buffer | undefined;
}

export const nodeKubeconfigIo = (): KubeconfigIo => ({
  env: process.env,
  home: os.homedir(),
  uid: process.getuid?.(),
  inspect: inspectPath,
  realPath: (file) => fs.realpathSync(file),
  readFile: (file) => {
    try {
      return readBoundedFile(file, MAX_CREDENTIAL_FILE_BYTES, CREDENTIAL_WAIT_MS);
    } catch (e) {
      if (e instanceof UnboundedFile) {
        throw unreadable(
          file,
          e.reason === 'too-large'
            ? `is larger than ${MAX_CREDENTIAL_FILE_BYTES} bytes; point it at the kubeconfig or PEM itself`
            : `gave no end of file within ${CREDENTIAL_WAIT_MS / 1000} s; a pipe or FIFO must be written and closed`,
        );
      }
      if (errorCode(e) === 'ENOENT') return undefined;
      throw new HandlerError('Kubernetes credential file unreadable', `${file}: ${errorCode(e) ?? e}`);
    }
  },
});

/**
 * How long a kubeconfig, CA, client certificate or key that is a pipe (`<(sops -d config)`) may take to be
 * written whole (reasoned: a decrypting command ends in a second or two; the handler's own timeoutSeconds
 * starts only once the connection is loaded).
 */
export const CREDENTIAL_WAIT_MS = 10_000;

/** A path's kind, owner and mode, following links; undefined when nothing is there. */
const inspectPath = (file: string): PathFacts | undefined => {
  try {
    const stat = fs.statSync(file);
    const kind = stat.isFile() ? 'file' : stat.isDirectory() ? 'dir' : 'other';
    return { kind, uid: stat.uid, mode: stat.mode & 0o7777 };
  } catch (e) {
    const code = errorCode(e);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new HandlerError('Kubernetes credential file unreadable', `cannot inspect ${file}: ${code ?? e}`);
  }
};

/** More than any token, PEM bundle or kubeconfig holds. */
export const MAX_CREDENTIAL_FILE_BYTES = 1024 * 1024;

const unreadable = (file: string, detail: string) =>
  new HandlerError('Kubernetes credential file unreadable', `${file} ${detail}`);

/**
 * A credential file re-read on every request (a tokenFile), or undefined when it does not exist: opened at its
 * resolved path without following a link or blocking, and only a regular file under the cap is read. A FIFO there
 * held the event loop past timeoutSeconds; a device would never end.
 */
export const readCredentialFile = (file: string): Buffer | undefined => {
  try {
    return readRegularFile(fs.realpathSync(file), MAX_CREDENTIAL_FILE_BYTES).bytes;
  } catch (e) {
    if (e instanceof IrregularFile) {
      throw unreadable(
        file,
        e.reason === 'not-regular'
          ? 'is not a regular file; point it at a file'
          : `is larger than ${MAX_CREDENTIAL_FILE_BYTES} bytes; point it at the credential itself`,
      );
    }
    if (errorCode(e) === 'ENOENT' || errorCode(e) === 'ENOTDIR') return undefined;
    throw unreadable(file, `cannot be read: ${errorCode(e) ?? e}`);
  }
};

/** What goes on the next request. */
export interface PresentedCredential {
  readonly token?: string;
  readonly clientCert?: ClientCert;
}

export interface CredentialPorts {
  readonly readFile: (file: string) => Buffer | undefined;
  readonly exec: (plugin: ExecPlugin) => Promise<ExecResult>;
}

/** The process-wide ports: real files, and one exec cache for every connection in this process. */
let processPorts: CredentialPorts | undefined;
export const nodeCredentialPorts = (): CredentialPorts =>
  (processPorts ??= { readFile: readCredentialFile, exec: execCredentialCache(spawnExecRunner, process.env) });

/** The credential for the next request: the exec plugin's (cached until it expires), the token file's as it reads
 * now, or the static token and certificate. */
export const currentCredential = async (
  connection: Pick<KubeConnection, 'auth' | 'origin'>,
  ports: CredentialPorts = nodeCredentialPorts(),
): Promise<PresentedCredential> => {
  const { auth } = connection;
  if (auth.exec) {
    const { token, clientCert } = await ports.exec(auth.exec);
    return { ...(token ? { token } : {}), ...(clientCert ? { clientCert } : {}) };
  }
  if (auth.tokenFile) {
    const token = ports.readFile(auth.tokenFile)?.toString('utf8').trim();
    if (!token) {
      throw new HandlerError(
        'Kubernetes token missing',
        `tokenFile ${auth.tokenFile} of ${connection.origin} is absent or empty`,
      );
    }
    return { token, ...(auth.clientCert ? { clientCert: auth.clientCert } : {}) };
  }
  return { ...(auth.token ? { token: auth.token } : {}), ...(auth.clientCert ? { clientCert: auth.clientCert } : {}) };
};
