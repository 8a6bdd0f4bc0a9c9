/**
 * A REAL Kubernetes API server for the kube tests (kube-processes.ts), seen by one test file as its own namespace
 * with an admin and a read-only identity, the Repo and Sandbox CRDs Established and a kubeconfig. Under jest it is
 * started once per run and shared (kube-shared.ts); a file that needs a server of its own asks for one.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { stringify } from 'yaml';
import { CR_GROUP, REPOS, SANDBOXES } from '../../src/kube/names';
import { installCrd, REPO_CRD, SANDBOX_CRD } from './kube-crds';
import { kubeExpect, type KubeCaller } from './kube-http';
import { READY_MS, STOP_MS, startKubeProcesses, type KubeProcesses } from './kube-processes';
import { sharedKubeProcesses } from './kube-shared';

export interface KubeApiServer {
  readonly server: string;
  readonly caPem: string;
  readonly caFile: string;
  /** This file's namespace (created at start; random when shared): use it, never a literal. */
  readonly namespace: string;
  /** system:masters. */
  readonly admin: KubeCaller;
  /** get/list/watch on the core.jr2.dev resources in `namespace`, nothing else. */
  readonly reader: KubeCaller;
  /** A kubeconfig with contexts `admin` (current) and `reader`, both in `namespace`. */
  readonly kubeconfig: string;
  readonly pids: { readonly etcd: number; readonly apiserver: number };
  readonly startupMs: Readonly<Record<string, number>>;
  /** Whether other test files use the same server (then CRDs and other cluster-wide objects are shared too). */
  readonly shared: boolean;
  stop(): Promise<void>;
}

export interface KubeApiServerOptions {
  /** A server of this file's own, never shared: for tests that change cluster-wide state. @default false */
  readonly own?: boolean;
  /** Install the Repo and Sandbox CRDs; `false` implies `own` (a missing-type test). @default true */
  readonly crds?: boolean;
}

/** The namespace and the read-only Role bound to the `reader` user in it. */
const seedNamespace = async (admin: KubeCaller, namespace: string) => {
  await kubeExpect(admin, 'POST', '/api/v1/namespaces', { metadata: { name: namespace } });
  const rbac = `/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}`;
  const rules = [{ apiGroups: [CR_GROUP], resources: [REPOS, SANDBOXES], verbs: ['get', 'list', 'watch'] }];
  await kubeExpect(admin, 'POST', `${rbac}/roles`, { metadata: { name: 'cr-reader' }, rules });
  await kubeExpect(admin, 'POST', `${rbac}/rolebindings`, {
    metadata: { name: 'cr-reader' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cr-reader' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'reader' }],
  });
};

const writeKubeconfig = (file: string, procs: KubeProcesses, namespace: string) => {
  const users = Object.entries(procs.tokens).map(([name, token]) => ({ name, user: { token } }));
  const contexts = users.map(({ name }) => ({ name, context: { cluster: 'test', user: name, namespace } }));
  const clusters = [{ name: 'test', cluster: { server: procs.server, 'certificate-authority': procs.caFile } }];
  const config = { apiVersion: 'v1', kind: 'Config', 'current-context': 'admin', clusters, contexts, users };
  fs.writeFileSync(file, stringify(config), { mode: 0o600 });
};

/** One file's view of running processes: its namespace, identities, CRDs and kubeconfig. */
const viewFor = async (procs: KubeProcesses, opts: { namespace: string; crds: boolean; shared: boolean }) => {
  const t0 = Date.now();
  const admin = { server: procs.server, caPem: procs.caPem, token: procs.tokens.admin };
  await seedNamespace(admin, opts.namespace);
  if (opts.crds) await Promise.all([installCrd(admin, REPO_CRD), installCrd(admin, SANDBOX_CRD)]);
  const kubeconfig = path.join(fs.mkdtempSync(path.join(procs.dir, 'view-')), 'kubeconfig');
  writeKubeconfig(kubeconfig, procs, opts.namespace);
  return {
    server: procs.server,
    caPem: procs.caPem,
    caFile: procs.caFile,
    namespace: opts.namespace,
    admin,
    reader: { ...admin, token: procs.tokens.reader },
    kubeconfig,
    pids: procs.pids,
    startupMs: { ...procs.startupMs, namespace: Date.now() - t0 },
    shared: opts.shared,
  };
};

/** A server of the caller's own: started now, stopped (processes and files) by `stop()`. */
export const startKubeApiServer = async (opts: Pick<KubeApiServerOptions, 'crds'> = {}): Promise<KubeApiServer> => {
  const procs = await startKubeProcesses();
  try {
    return {
      ...(await viewFor(procs, { namespace: 'jr2', crds: opts.crds ?? true, shared: false })),
      stop: procs.stop,
    };
  } catch (e) {
    await procs.stop();
    throw e;
  }
};

/** The run's shared server (started by whichever file asks first), or one of this file's own; ready in tests. */
export const useKubeApiServer = (opts: KubeApiServerOptions = {}): (() => KubeApiServer) => {
  let started: KubeApiServer | undefined;
  beforeAll(async () => {
    const shared = !opts.own && opts.crds !== false ? await sharedKubeProcesses() : undefined;
    if (shared === undefined) started = await startKubeApiServer(opts);
    else {
      const namespace = `jr2-${randomBytes(3).toString('hex')}`;
      started = { ...(await viewFor(shared, { namespace, crds: true, shared: true })), stop: async () => undefined };
    }
  }, READY_MS + 30_000); // bounded inside; the hook's own timeout must not cut the start-up short
  afterAll(() => started?.stop(), 3 * STOP_MS);
  return () => {
    if (started === undefined) throw new Error('the kube API server is not started yet (use it inside a test)');
    return started;
  };
};
