/**
 * One kubeconfig file as text → checked plain data. Parse failures name the file, line and field but never quote
 * the text: a kubeconfig holds tokens and keys, and a YAML code frame or a received value would print them.
 */
import * as z from 'zod/mini';
import { HandlerError } from '../core/errors';

const str = z.optional(z.nullable(z.string()));
const list = <T extends z.core.SomeType>(item: T) => z.optional(z.nullable(z.array(item)));

const cluster = z.object({
  server: str,
  'certificate-authority': str,
  'certificate-authority-data': str,
  'insecure-skip-tls-verify': z.optional(z.nullable(z.boolean())),
  'tls-server-name': str,
  'proxy-url': str,
});

const exec = z.object({
  apiVersion: str,
  command: str,
  args: list(z.string()),
  env: list(z.object({ name: z.string(), value: z.string() })),
  installHint: str,
  provideClusterInfo: z.optional(z.nullable(z.boolean())),
  interactiveMode: str,
});

const user = z.object({
  'client-certificate': str,
  'client-certificate-data': str,
  'client-key': str,
  'client-key-data': str,
  token: str,
  tokenFile: str,
  username: str,
  password: str,
  as: str,
  'as-uid': str,
  'as-groups': list(z.string()),
  'auth-provider': z.optional(z.nullable(z.object({ name: str }))),
  exec: z.optional(z.nullable(exec)),
});

const context = z.object({ cluster: str, user: str, namespace: str });

const document = z.object({
  'current-context': str,
  clusters: list(z.object({ name: z.string(), cluster: z.optional(z.nullable(cluster)) })),
  users: list(z.object({ name: z.string(), user: z.optional(z.nullable(user)) })),
  contexts: list(z.object({ name: z.string(), context: z.optional(z.nullable(context)) })),
});

export type KubeconfigCluster = z.infer<typeof cluster>;
export type KubeconfigUser = z.infer<typeof user>;
export type KubeconfigExec = z.infer<typeof exec>;
export type KubeconfigContext = z.infer<typeof context>;

/** One file's entries by name, each remembering the file it came from (relative paths resolve against it). */
export interface KubeconfigFile {
  readonly path: string;
  readonly currentContext?: string;
  readonly clusters: ReadonlyMap<string, KubeconfigCluster>;
  readonly users: ReadonlyMap<string, KubeconfigUser>;
  readonly contexts: ReadonlyMap<string, KubeconfigContext>;
}

const unusable = (path: string, why: string) =>
  new HandlerError('Kubeconfig unusable', `${path} ${why}; fix the file or point KUBECONFIG elsewhere`);

/** The entries of a named list by name; a name twice in one file is refused, as client-go's decoder does. */
const byName = <E extends { name: string }, T>(
  path: string,
  kind: string,
  entries: E[] | null | undefined,
  body: (entry: E) => T,
) => {
  const out = new Map<string, T>();
  for (const entry of entries ?? []) {
    if (out.has(entry.name)) throw unusable(path, `lists ${kind} "${entry.name}" twice`);
    out.set(entry.name, body(entry));
  }
  return out;
};

/** JSON (what `kubectl config view -o json` and many tools write) without loading the YAML parser: measured
 * ~33 ms of CPU to load on these machines, a sixth of a read handler's budget. Any doubt goes to the YAML parser. */
const parseJson = (text: string): unknown => {
  if (!text.trimStart().startsWith('{')) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined; // V8's message quotes the text; the YAML parser reports the position instead
  }
};

const parseYaml = (path: string, text: string): unknown => {
  // Loaded only for a file that is not JSON (see parseJson).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const yaml = require('yaml') as typeof import('yaml');
  try {
    return yaml.parse(text, { prettyErrors: false }) ?? {};
  } catch (e) {
    if (!(e instanceof yaml.YAMLError)) throw e;
    // Only the position and the code: yaml's own message quotes the offending line.
    const before = text.slice(0, e.pos[0]).split('\n');
    const where = `line ${before.length}, column ${(before.at(-1) ?? '').length + 1}`;
    throw unusable(path, `is not valid YAML at ${where} (${e.code})`);
  }
};

/** Parses one kubeconfig file's text. An empty file is an empty config, as kubectl treats it. */
export const parseKubeconfig = (path: string, text: string): KubeconfigFile => {
  const raw = parseJson(text) ?? parseYaml(path, text);
  const parsed = document.safeParse(raw);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    const expected =
      issue === undefined ? 'invalid' : 'expected' in issue ? `expected ${String(issue.expected)}` : issue.code;
    throw unusable(path, `has a malformed field ${issue?.path.join('.') || '(top level)'}: ${expected}`);
  }
  const doc = parsed.data;
  return {
    path,
    currentContext: doc['current-context'] || undefined,
    clusters: byName(path, 'cluster', doc.clusters, (e) => e.cluster ?? {}),
    users: byName(path, 'user', doc.users, (e) => e.user ?? {}),
    contexts: byName(path, 'context', doc.contexts, (e) => e.context ?? {}),
  };
};
