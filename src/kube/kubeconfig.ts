/**
 * Which API server and identity a kubeconfig (merged from KUBECONFIG as kubectl merges it) or the pod's service
 * account names, as plain data for an HTTP client. What cannot be honoured (auth-provider, impersonation, a proxy)
 * is refused by name, so a handler never quietly talks to another cluster or as another user than kubectl would.
 */
import * as path from 'node:path';
import { HandlerError } from '../core/errors';
import type { KubeAuth, KubeConnection, KubeconfigIo } from './connection';
import { EXEC_API_VERSIONS, type ExecClusterInfo, type ExecPlugin, isExecApiVersion } from './exec-credential';
import { requireTrusted, requireTrustedCommand } from './file-trust';
import {
  parseKubeconfig,
  type KubeconfigCluster,
  type KubeconfigContext,
  type KubeconfigFile,
  type KubeconfigUser,
} from './kubeconfig-document';

export interface KubeconfigOptions {
  /** A kubeconfig path (`~` expanded); absent = KUBECONFIG, else ~/.kube/config. */
  readonly kubeconfig?: string;
  /** Absent = the current-context. */
  readonly context?: string;
}

const unusable = (detail: string) => new HandlerError('Kubeconfig unusable', detail);

export const expandHome = (file: string, home: string): string =>
  file === '~' ? home : file.startsWith('~/') ? path.join(home, file.slice(2)) : file;

/** The files to read, in precedence order; `explicit` says a missing one is an error rather than skipped. */
export const kubeconfigPaths = (opts: KubeconfigOptions, io: Pick<KubeconfigIo, 'env' | 'home'>) => {
  if (opts.kubeconfig) return { explicit: true, files: [expandHome(opts.kubeconfig, io.home)] };
  const fromEnv = (io.env.KUBECONFIG ?? '').split(path.delimiter).filter((f) => f !== '');
  if (fromEnv.length > 0) return { explicit: false, files: [...new Set(fromEnv)] };
  return { explicit: false, files: [path.join(io.home, '.kube', 'config')] };
};

/** An entry with the file it came from: relative paths in it resolve against that file's directory. */
interface Sourced<T> {
  readonly value: T;
  readonly file: string;
}

export interface MergedKubeconfig {
  readonly files: readonly string[];
  readonly currentContext?: string;
  readonly clusters: ReadonlyMap<string, Sourced<KubeconfigCluster>>;
  readonly users: ReadonlyMap<string, Sourced<KubeconfigUser>>;
  readonly contexts: ReadonlyMap<string, Sourced<KubeconfigContext>>;
}

/** kubectl's merge: the first file to set a name wins that name whole; current-context from the first that has one. */
export const mergeKubeconfigs = (files: readonly KubeconfigFile[]): MergedKubeconfig => {
  const first = <T>(pick: (f: KubeconfigFile) => ReadonlyMap<string, T>) => {
    const out = new Map<string, Sourced<T>>();
    for (const f of files)
      for (const [name, value] of pick(f)) if (!out.has(name)) out.set(name, { value, file: f.path });
    return out;
  };
  return {
    files: files.map((f) => f.path),
    currentContext: files.find((f) => f.currentContext)?.currentContext,
    clusters: first((f) => f.clusters),
    users: first((f) => f.users),
    contexts: first((f) => f.contexts),
  };
};

/** The context, cluster and user a connection is built from; pure. */
export const selectContext = (merged: MergedKubeconfig, wanted?: string) => {
  const where = merged.files.join(path.delimiter) || '(no kubeconfig file)';
  const known = [...merged.contexts.keys()].map((n) => `"${n}"`).join(', ') || 'none';
  const name = wanted ?? merged.currentContext;
  if (!name) throw unusable(`${where} sets no current-context; name a context (available: ${known})`);
  const context = merged.contexts.get(name);
  if (!context) throw unusable(`context "${name}" is not in ${where} (available: ${known})`);
  const clusterName = context.value.cluster ?? '';
  const cluster = merged.clusters.get(clusterName);
  if (!cluster) throw unusable(`context "${name}" names cluster "${clusterName}", which ${where} does not define`);
  const userName = context.value.user || undefined;
  const user = userName === undefined ? undefined : merged.users.get(userName);
  if (userName !== undefined && !user)
    throw unusable(`context "${name}" names user "${userName}", which ${where} does not define`);
  return {
    name,
    origin: `context "${name}" in ${context.file}`,
    context: context.value,
    clusterName,
    cluster,
    userName,
    user,
  };
};

type Read = (file: string, what: string) => Buffer;

const relativeTo = (origin: string, file: string | null | undefined) =>
  file ? path.resolve(path.dirname(origin), file) : undefined;

/** A PEM field of one entry: inline base64 (`<field>-data`) or a file relative to the kubeconfig, never both. */
const pemOf =
  (owner: string, origin: string, read: Read) => (field: string, data?: string | null, ref?: string | null) => {
    if (data && ref) throw unusable(`${owner} sets both ${field}-data and ${field}; keep one`);
    if (data) {
      const bytes = Buffer.from(data, 'base64');
      if (!bytes.toString('latin1').includes('-----BEGIN '))
        throw unusable(`${owner}: ${field}-data is not base64 of PEM`);
      return bytes;
    }
    const file = relativeTo(origin, ref);
    return file ? read(file, `${owner} ${field}`) : undefined;
  };

const connectionCluster = (name: string, { value: c, file }: Sourced<KubeconfigCluster>, read: Read) => {
  const owner = `cluster "${name}" in ${file}`;
  if (c['proxy-url'])
    throw unusable(`${owner} sets proxy-url, which this library does not support; reach the server directly`);
  if (!c.server) throw unusable(`${owner} has no server`);
  let url: URL;
  try {
    url = new URL(c.server);
  } catch {
    throw unusable(`${owner}: server is not a URL like https://host:6443`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw unusable(`${owner}: server must be http(s)://`);
  // Neither is ever shown: either may hold a password or a token, and an error would print the server whole.
  if (url.username !== '' || url.password !== '')
    throw unusable(`${owner}: server carries a user or password; remove it (the user entry holds the credential)`);
  if (url.search !== '' || url.hash !== '')
    throw unusable(`${owner}: server carries a query or fragment; remove it (the server is https://host:port)`);
  const caPem = pemOf(owner, file, read)(
    'certificate-authority',
    c['certificate-authority-data'],
    c['certificate-authority'],
  );
  const insecureSkipTlsVerify = c['insecure-skip-tls-verify'] === true;
  if (insecureSkipTlsVerify && caPem)
    throw unusable(`${owner} sets a certificate authority and insecure-skip-tls-verify; keep one`);
  return { server: c.server, caPem, insecureSkipTlsVerify, tlsServerName: c['tls-server-name'] || undefined };
};

const BASIC =
  'basic auth (username/password), which the API server removed in 1.19; use a token or a client certificate';
const IMPERSONATE =
  'impersonation (as, as-uid, as-groups), which this library does not support; grant the user the rights';
const UNSUPPORTED: ReadonlyArray<[keyof KubeconfigUser, string]> = [
  [
    'auth-provider',
    'the auth-provider, which kubectl removed in 1.26; switch the user to an exec plugin (e.g. kubelogin)',
  ],
  ['username', BASIC],
  ['password', BASIC],
  ['as', IMPERSONATE],
  ['as-uid', IMPERSONATE],
  ['as-groups', IMPERSONATE],
];

type ExecConfig = NonNullable<KubeconfigUser['exec']>;

const execPlugin = (owner: string, user: string, e: ExecConfig, file: string, info: ExecClusterInfo): ExecPlugin => {
  if (!e.command) throw unusable(`${owner}: exec has no command`);
  const apiVersion = e.apiVersion;
  if (!isExecApiVersion(apiVersion)) {
    throw unusable(`${owner}: exec apiVersion must be one of ${EXEC_API_VERSIONS.join(', ')}`);
  }
  const mode = e.interactiveMode || (apiVersion.endsWith('/v1') ? undefined : 'IfAvailable');
  if (mode === undefined)
    throw unusable(`${owner}: exec needs interactiveMode (Never or IfAvailable) with ${apiVersion}`);
  if (mode === 'Always')
    throw unusable(`${owner}: exec interactiveMode Always needs a terminal, and Terraform gives handlers none`);
  if (mode !== 'Never' && mode !== 'IfAvailable')
    throw unusable(`${owner}: exec interactiveMode must be Never or IfAvailable`);
  if ((e.env ?? []).some((v) => !v.name)) throw unusable(`${owner}: every exec env entry needs a name`);
  return {
    user,
    apiVersion,
    // client-go resolves a command with a path separator against the kubeconfig's directory, a bare one via PATH.
    command: e.command.includes('/') ? path.resolve(path.dirname(file), e.command) : e.command,
    args: e.args ?? [],
    env: e.env ?? [],
    ...(e.installHint ? { installHint: e.installHint } : {}),
    ...(e.provideClusterInfo ? { cluster: info } : {}),
  };
};

const connectionAuth = (
  name: string,
  { value: u, file }: Sourced<KubeconfigUser>,
  info: ExecClusterInfo,
  read: Read,
) => {
  const owner = `user "${name}" in ${file}`;
  for (const [field, why] of UNSUPPORTED) if (u[field]) throw unusable(`${owner} uses ${why}`);
  const pem = pemOf(owner, file, read);
  const certPem = pem('client-certificate', u['client-certificate-data'], u['client-certificate']);
  const keyPem = pem('client-key', u['client-key-data'], u['client-key']);
  if (!certPem !== !keyPem) throw unusable(`${owner} sets only one of the client certificate and key; set both`);
  const clientCert = certPem && keyPem ? { certPem, keyPem } : undefined;
  // A tokenFile wins over a token beside it: client-go re-reads the file, using the token only while it is unreadable.
  const tokenFile = relativeTo(file, u.tokenFile);
  const token = tokenFile ? undefined : u.token || undefined;
  if (u.exec && (clientCert || token || tokenFile)) {
    throw unusable(`${owner} sets an exec plugin beside a token or client certificate; keep one`);
  }
  return {
    ...(clientCert ? { clientCert } : {}),
    ...(token ? { token } : {}),
    ...(tokenFile ? { tokenFile } : {}),
    ...(u.exec ? { exec: execPlugin(owner, name, u.exec, file, info) } : {}),
  } satisfies KubeAuth;
};

/** Builds the connection for the selected context; `read` is the only I/O (CA, certificate and key files). */
export const resolveConnection = (selected: ReturnType<typeof selectContext>, read: Read): KubeConnection => {
  const cluster = connectionCluster(selected.clusterName, selected.cluster, read);
  const info: ExecClusterInfo = {
    server: cluster.server,
    ...(cluster.tlsServerName ? { 'tls-server-name': cluster.tlsServerName } : {}),
    ...(cluster.insecureSkipTlsVerify ? { 'insecure-skip-tls-verify': true } : {}),
    ...(cluster.caPem ? { 'certificate-authority-data': cluster.caPem.toString('base64') } : {}),
  };
  const auth = selected.user && selected.userName ? connectionAuth(selected.userName, selected.user, info, read) : {};
  return { origin: selected.origin, ...cluster, namespace: selected.context.namespace || 'default', auth };
};

/** The I/O shell: reads and merges the files, selects the context, reads the files it names. Every file that decides
 * what the handler runs or trusts is checked to be the user's alone first (file-trust.ts). */
export const loadKubeconfig = (opts: KubeconfigOptions, io: KubeconfigIo): KubeConnection => {
  const { explicit, files } = kubeconfigPaths(opts, io);
  const parsed: KubeconfigFile[] = [];
  for (const file of files) {
    requireTrusted(io, file, 'kubeconfig');
    const bytes = io.readFile(file);
    if (bytes === undefined && explicit) throw unusable(`${file} does not exist; check the kubeconfig path`);
    if (bytes !== undefined) parsed.push(parseKubeconfig(file, bytes.toString('utf8')));
  }
  if (parsed.length === 0)
    throw unusable(`no kubeconfig found (looked for ${files.join(', ')}); set KUBECONFIG or a path`);
  const read: Read = (file, what) => {
    requireTrusted(io, file, what);
    const bytes = io.readFile(file);
    if (bytes === undefined) throw unusable(`${what} file ${file} does not exist`);
    return bytes;
  };
  const selected = selectContext(mergeKubeconfigs(parsed), opts.context);
  const connection = resolveConnection(selected, read);
  // Re-read on every request rather than here, but held to the rule of the client key it stands in for.
  const tokenFile = connection.auth.tokenFile;
  if (tokenFile !== undefined)
    requireTrusted(io, tokenFile, `user "${selected.userName}" in ${selected.user?.file} tokenFile`);
  const exec = connection.auth.exec;
  if (exec !== undefined) {
    // The PATH the plugin is spawned with (execEnvironment): the kubeconfig's last PATH entry, else ours.
    const searchPath = [...exec.env].reverse().find((v) => v.name === 'PATH')?.value ?? io.env.PATH ?? '';
    requireTrustedCommand(io, exec.command, searchPath, `exec command of user "${exec.user}"`);
  }
  return connection;
};
