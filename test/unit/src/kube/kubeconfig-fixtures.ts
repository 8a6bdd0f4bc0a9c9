/** Kubeconfig fixtures for the unit tests: an in-memory file table and builders for kubectl's file shape. */
import type { KubeconfigIo } from '../../../../src/kube/connection';
import type { PathFacts } from '../../../../src/kube/file-trust';

export const PEM = (what: string) => `-----BEGIN ${what}-----\nMIIB\n-----END ${what}-----\n`;
export const b64 = (s: string) => Buffer.from(s).toString('base64');
export const SECRET = 'sekret-token-abc123';

/** The uid the in-memory files belong to. */
export const ME = 1000;

/**
 * A kubeconfig io over an in-memory file table: each file is ours with mode 0600, each directory above one is
 * root's with mode 0755, and `facts` overrides any path (a planted file, a world-writable directory).
 */
export const ioOf = (
  files: Record<string, string>,
  env: Record<string, string> = {},
  facts: Record<string, PathFacts | undefined> = {},
): KubeconfigIo => ({
  env,
  home: '/home/me',
  readFile: (f) => {
    const text = files[f];
    return text === undefined ? undefined : Buffer.from(text);
  },
  uid: ME,
  inspect: (f) => {
    if (f in facts) return facts[f];
    if (f in files) return { kind: 'file', uid: ME, mode: 0o600 };
    const dir = f === '/' || Object.keys(files).some((file) => file.startsWith(`${f}/`));
    return dir ? { kind: 'dir', uid: 0, mode: 0o755 } : undefined;
  },
  realPath: (f) => f,
});

export const kubeconfig = (o: { current?: string; clusters?: object[]; users?: object[]; contexts?: object[] }) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    ...(o.current ? { 'current-context': o.current } : {}),
    clusters: o.clusters ?? [],
    users: o.users ?? [],
    contexts: o.contexts ?? [],
  });
export const cluster = (name: string, body: object = {}) => ({
  name,
  cluster: { server: `https://${name}:6443`, ...body },
});
export const user = (name: string, body: object = {}) => ({ name, user: body });
export const context = (name: string, c: string, u?: string, ns?: string) => ({
  name,
  context: { cluster: c, ...(u ? { user: u } : {}), ...(ns ? { namespace: ns } : {}) },
});
export const single = (c: object, u: object) =>
  kubeconfig({
    current: 'x',
    clusters: [{ name: 'c', cluster: c }],
    users: [{ name: 'u', user: u }],
    contexts: [context('x', 'c', 'u')],
  });
