// Smoke test of the real kube test server: the behaviours the Kubernetes domain relies on, seen on the real thing
// (a CR create, RBAC's 403 Status for the read-only identity, a watch from a too-old resourceVersion answering 410).
import * as fs from 'node:fs';
import { loadKubeconfig } from '../../src/kube/kubeconfig';
import { nodeKubeconfigIo } from '../../src/kube/connection';
import { useKubeApiServer, type KubeApiServer } from './kube-apiserver';
import { crPath } from './kube-crds';
import { kubeRequest, kubeWatch, type WatchEvent } from './kube-http';

const server = useKubeApiServer();
let kube: KubeApiServer;
/** CPU seconds a process has used (user + system), from /proc: start-up cost independent of the machine's load. */
const cpuSeconds = (pid: number) => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
};
const rssMiB = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

beforeAll(() => {
  kube = server();
  const { apiserver, etcd } = kube.pids;
  const cpu = `CPU s apiserver ${cpuSeconds(apiserver)}, etcd ${cpuSeconds(etcd)}`;
  const rss = `RSS MiB apiserver ${rssMiB(apiserver).toFixed(0)}, etcd ${rssMiB(etcd).toFixed(0)}`;
  const startup = `start-up ms ${JSON.stringify(kube.startupMs)}`;
  console.log(`kube API server at ${kube.server} (shared: ${kube.shared}), ${startup}; ${cpu}; ${rss}`);
});

const repo = (name: string) => ({
  apiVersion: 'core.jr2.dev/v1alpha1',
  kind: 'Repo',
  metadata: { name },
  spec: { url: 'https://git.example/me/site.git', refreshInterval: '5m' },
});

test('the written kubeconfig resolves to this server, its CA and the admin token', () => {
  const conn = loadKubeconfig({ kubeconfig: kube.kubeconfig }, nodeKubeconfigIo());
  expect(conn).toMatchObject({ server: kube.server, namespace: kube.namespace, auth: { token: kube.admin.token } });
  expect(conn.caPem?.toString()).toBe(kube.caPem);
  const reader = loadKubeconfig({ kubeconfig: kube.kubeconfig, context: 'reader' }, nodeKubeconfigIo());
  expect(reader.auth).toEqual({ token: kube.reader.token });
});

test('the admin creates a Repo; the read-only identity reads it, and a create gets 403 with the Status', async () => {
  const created = await kubeRequest(kube.admin, 'POST', crPath(kube.namespace, 'repos'), repo('site'));
  expect(created.status).toBe(201);
  const read = await kubeRequest(kube.reader, 'GET', crPath(kube.namespace, 'repos', 'site'));
  expect(read).toMatchObject({ status: 200, body: { spec: { url: 'https://git.example/me/site.git' } } });
  const refused = await kubeRequest(kube.reader, 'POST', crPath(kube.namespace, 'repos'), repo('other'));
  expect(refused).toMatchObject({
    status: 403,
    body: {
      kind: 'Status',
      reason: 'Forbidden',
      code: 403,
      message:
        'repos.core.jr2.dev is forbidden: User "reader" cannot create resource "repos" in API group "core.jr2.dev" ' +
        `in the namespace "${kube.namespace}"`,
    },
  });
});

test('a watch from a too-old resourceVersion answers 200, then one ERROR event with 410 Expired', async () => {
  const events: WatchEvent[] = [];
  const path = `${crPath(kube.namespace, 'repos')}?watch=1&resourceVersion=1`;
  const watch = kubeWatch(kube.reader, path, (e) => events.push(e));
  expect(await watch.status).toBe(200);
  await watch.ended; // the server ends the stream after the ERROR event
  expect(events).toEqual([
    {
      type: 'ERROR',
      object: expect.objectContaining({
        kind: 'Status',
        reason: 'Expired',
        code: 410,
        message: expect.stringMatching(/^too old resource version: 1 \(\d+\)$/),
      }),
    },
  ]);
});
