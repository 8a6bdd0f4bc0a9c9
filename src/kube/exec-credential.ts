/**
 * kubeconfig exec credential plugins (client.authentication.k8s.io): what to run, how to read its ExecCredential,
 * and a per-process cache until `expirationTimestamp`, so a handler asks `aws eks get-token` once, not per request.
 * The run itself is a port; a plugin never gets our stdin (it is Terraform's query) and its output is never echoed.
 */
import * as z from 'zod/mini';
import { errorCode, errorMessage, HandlerError } from '../core/errors';

export const EXEC_API_VERSIONS = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'] as const;
export type ExecApiVersion = (typeof EXEC_API_VERSIONS)[number];

/** Whether `value` is an exec plugin API version this library speaks. */
export const isExecApiVersion = (value: unknown): value is ExecApiVersion =>
  EXEC_API_VERSIONS.some((version) => version === value);

/** What `provideClusterInfo: true` hands the plugin, in ExecCredential's own field names. */
export interface ExecClusterInfo {
  readonly server: string;
  readonly 'tls-server-name'?: string;
  readonly 'insecure-skip-tls-verify'?: boolean;
  readonly 'certificate-authority-data'?: string;
}

/** A user's exec plugin, checked and with its command resolved against the kubeconfig that named it. */
export interface ExecPlugin {
  readonly user: string;
  readonly apiVersion: ExecApiVersion;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: ReadonlyArray<{ readonly name: string; readonly value: string }>;
  readonly installHint?: string;
  readonly cluster?: ExecClusterInfo;
}

/** Runs the plugin: stdin closed, stderr passed through to ours (the plugin's own words), stdout captured. */
export type ExecRunner = (
  command: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
) => Promise<{ readonly exitCode: number | null; readonly stdout: string }>;

/** The credential a plugin answered with. */
export interface ExecResult {
  readonly token?: string;
  readonly clientCert?: { readonly certPem: Buffer; readonly keyPem: Buffer };
  /** Epoch ms; absent = valid for the rest of the process. */
  readonly expiresAt?: number;
}

const failed = (plugin: ExecPlugin, why: string) =>
  new HandlerError('Kubernetes exec credential failed', `plugin "${plugin.command}" of user "${plugin.user}" ${why}`);

/**
 * The environment the plugin runs with: ours, the kubeconfig's `env`, and KUBERNETES_EXEC_INFO. Built from
 * entries, not by assignment, since the names are the kubeconfig's: `env.__proto__ = v` sets nothing.
 */
export const execEnvironment = (
  plugin: ExecPlugin,
  base: Readonly<Record<string, string | undefined>>,
): Record<string, string> => {
  const spec = { interactive: false, ...(plugin.cluster ? { cluster: plugin.cluster } : {}) };
  const info = JSON.stringify({ apiVersion: plugin.apiVersion, kind: 'ExecCredential', spec });
  const ours = Object.entries(base).filter((entry): entry is [string, string] => entry[1] !== undefined);
  const kubeconfig = plugin.env.map(({ name, value }): [string, string] => [name, value]);
  return Object.fromEntries([...ours, ...kubeconfig, ['KUBERNETES_EXEC_INFO', info]]);
};

const execCredential = z.object({
  apiVersion: z.optional(z.string()),
  kind: z.optional(z.string()),
  status: z.optional(
    z.nullable(
      z.object({
        token: z.optional(z.nullable(z.string())),
        clientCertificateData: z.optional(z.nullable(z.string())),
        clientKeyData: z.optional(z.nullable(z.string())),
        expirationTimestamp: z.optional(z.nullable(z.string())),
      }),
    ),
  ),
});

/** Reads a plugin's stdout; every refusal names the plugin and what is wrong, never what it printed. */
export const parseExecCredential = (plugin: ExecPlugin, stdout: string): ExecResult => {
  let raw: unknown;
  try {
    raw = JSON.parse(stdout);
  } catch {
    throw failed(plugin, 'printed something that is not an ExecCredential JSON object');
  }
  const parsed = execCredential.safeParse(raw);
  if (!parsed.success)
    throw failed(plugin, `printed a malformed ExecCredential (${parsed.error.issues[0]?.path.join('.') ?? 'invalid'})`);
  const { apiVersion, kind, status } = parsed.data;
  if (kind !== 'ExecCredential') throw failed(plugin, `printed kind ${kind ?? '(none)'}, want ExecCredential`);
  if (apiVersion !== plugin.apiVersion) {
    throw failed(
      plugin,
      `answered ${apiVersion ?? '(no apiVersion)'} but the kubeconfig asks for ${plugin.apiVersion}`,
    );
  }
  if (!status) throw failed(plugin, 'returned no status');
  const cert = status.clientCertificateData || undefined;
  const key = status.clientKeyData || undefined;
  if (!status.token && !cert && !key) throw failed(plugin, 'returned neither a token nor a client certificate and key');
  if (!cert !== !key) throw failed(plugin, 'returned only one of the client certificate and key');
  let expiresAt: number | undefined;
  if (status.expirationTimestamp) {
    expiresAt = Date.parse(status.expirationTimestamp);
    if (Number.isNaN(expiresAt)) throw failed(plugin, 'returned an expirationTimestamp that is not an RFC 3339 time');
  }
  return {
    ...(status.token ? { token: status.token } : {}),
    ...(cert && key ? { clientCert: { certPem: Buffer.from(cert), keyPem: Buffer.from(key) } } : {}),
    ...(expiresAt === undefined ? {} : { expiresAt }),
  };
};

/** Whether a cached answer may still be used at `now` (epoch ms); client-go's rule: until expiry, else forever. */
export const isFresh = (result: ExecResult, now: number): boolean =>
  result.expiresAt === undefined || now < result.expiresAt;

/** Terminal escape sequences, or runs of whitespace and other control characters. */
const UNPRINTABLE = /\u001b(\[[0-9;]*[A-Za-z])?|[\s\u0000-\u001a\u001c-\u001f\u007f]+/g;

/** One printable line: the hint comes from a kubeconfig, and it lands in Terraform's output. */
const oneLine = (text: string) => text.replace(UNPRINTABLE, (m) => (m[0] === '\u001b' ? '' : ' ')).trim();

/** One cache per process, keyed by everything that makes two plugin runs differ. */
export const execCredentialCache = (
  run: ExecRunner,
  env: Readonly<Record<string, string | undefined>>,
  now: () => number = Date.now,
) => {
  const cache = new Map<string, Promise<ExecResult>>();
  const fetch = async (plugin: ExecPlugin): Promise<ExecResult> => {
    let answer: Awaited<ReturnType<ExecRunner>>;
    try {
      answer = await run(plugin.command, plugin.args, execEnvironment(plugin, env));
    } catch (e) {
      const code = errorCode(e);
      const hint = plugin.installHint === undefined ? undefined : oneLine(plugin.installHint);
      if (code === 'ENOENT') throw failed(plugin, `is not installed${hint ? `: ${hint}` : ''}`);
      throw failed(plugin, `could not run: ${code ?? errorMessage(e)}`);
    }
    if (answer.exitCode !== 0)
      throw failed(plugin, `exited with ${answer.exitCode ?? 'a signal'} (its stderr is above)`);
    return parseExecCredential(plugin, answer.stdout);
  };
  return async (plugin: ExecPlugin): Promise<ExecResult> => {
    const key = JSON.stringify(plugin);
    const cached = cache.get(key);
    if (cached) {
      const result = await cached.catch(() => undefined);
      if (result && isFresh(result, now())) return result;
    }
    const next = fetch(plugin);
    cache.set(key, next);
    return next;
  };
};
