/** Kubeconfig fixtures for the unit tests: an in-memory file table and builders for kubectl's file shape. */
import type { KubeconfigIo } from '../../../../src/kube/connection';

export const PEM = (what: string) => `-----BEGIN ${what}-----\nMIIB\n-----END ${what}-----\n`;
export const b64 = (s: string) => Buffer.from(s).toString('base64');
export const SECRET = 'sekret-token-abc123';

/** A kubeconfig io over an in-memory file table. */
export const ioOf = (files: Record<string, string>, env: Record<string, string> = {}): KubeconfigIo => ({
  env,
  home: '/home/me',
  readFile: (f) => (f in files ? Buffer.from(files[f]) : undefined),
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
