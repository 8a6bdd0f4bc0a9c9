// Contract test of the kube client against the REAL API server: create-never-overwrite on 409, merge patch with
// null removing a label, 403 with the API's own message, a missing type told from a missing object, a metadata-only
// Secret check, a watch that re-lists after a 410 Expired ERROR event, tls-server-name checked by the server's
// own serving certificate, and an exec plugin's token, run as a handler runs it, accepted by the server.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { stringify } from 'yaml';
import { systemClock } from '../../../src/core/clock';
import { KubeClient, type KubeList, METADATA_ONLY } from '../../../src/kube/client';
import { nodeKubeconfigIo } from '../../../src/kube/connection';
import { execCredentialCache } from '../../../src/kube/exec-credential';
import { execRunner } from '../../../src/kube/exec-runner';
import { loadKubeconfig } from '../../../src/kube/kubeconfig';
import { isObjectNotFound, KubeApiError, statusOf } from '../../../src/kube/status';
import { watchObject } from '../../../src/kube/watch';
import { useKubeApiServer, type KubeApiServer } from '../../support/kube-apiserver';
import { CR_VERSION, crPath } from '../../support/kube-crds';
import { kubeExpect } from '../../support/kube-http';

const server = useKubeApiServer();
let kube: KubeApiServer;
let admin: KubeClient;
let reader: KubeClient;
beforeAll(() => {
  kube = server();
  admin = new KubeClient(loadKubeconfig({ kubeconfig: kube.kubeconfig }, nodeKubeconfigIo()));
  reader = new KubeClient(loadKubeconfig({ kubeconfig: kube.kubeconfig, context: 'reader' }, nodeKubeconfigIo()));
});
afterAll(() => {
  admin.close();
  reader.close();
});

const repo = (name: string, url: string) => ({
  apiVersion: `core.jr2.dev/${CR_VERSION}`,
  kind: 'Repo',
  metadata: { name, labels: { team: 'web' } },
  spec: { url, refreshInterval: '5m' },
});

test('a POST on an existing Repo answers 409 AlreadyExists and leaves the other creator’s spec', async () => {
  const path = crPath(kube.namespace, 'repos');
  await kubeExpect(kube.admin, 'POST', path, repo('taken', 'https://git.example/them.git'));
  const answer = await admin.send('POST', path, repo('taken', 'https://git.example/me.git'));
  expect(answer.status).toBe(409);
  expect(statusOf(answer.raw)).toMatchObject({ code: 409, reason: 'AlreadyExists', name: 'taken' });
  expect((await admin.get(crPath(kube.namespace, 'repos', 'taken'))).spec).toMatchObject({
    url: 'https://git.example/them.git',
  });
});

test('a merge patch restates spec.url after a hand edit and null removes only the named label', async () => {
  const path = crPath(kube.namespace, 'repos', 'edited');
  await admin.post(crPath(kube.namespace, 'repos'), repo('edited', 'https://git.example/hand.git'));
  await admin.mergePatch(path, { metadata: { labels: { 'core.jr2.dev/bound': 'true' } } });
  const patched = await admin.mergePatch(path, {
    spec: { url: 'https://git.example/me.git' },
    metadata: { labels: { 'core.jr2.dev/bound': null } },
  });
  expect(patched).toMatchObject({ spec: { url: 'https://git.example/me.git', refreshInterval: '5m' } });
  expect((patched.metadata as { labels: object }).labels).toEqual({ team: 'web' });
});

test('the read-only identity gets 403 with the API message in one line', async () => {
  const error = await reader
    .mergePatch(crPath(kube.namespace, 'repos', 'edited'), { spec: { url: 'x' } })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(KubeApiError);
  expect((error as KubeApiError).oneLine()).toBe(
    'Kubernetes API answered 403 Forbidden: repos.core.jr2.dev "edited" is forbidden: User "reader" cannot patch ' +
      `resource "repos" in API group "core.jr2.dev" in the namespace "${kube.namespace}"; grant the verb to the ` +
      `identity of context "reader" in ${kube.kubeconfig} (see the README's RBAC table); ` +
      `Request: PATCH ${crPath(kube.namespace, 'repos', 'edited')}; Server: ${kube.server}`,
  );
});

test('a missing object is NotFound naming it; a type the server does not serve is a 404 that does not', async () => {
  const missing = await admin.send('GET', crPath(kube.namespace, 'repos', 'nope'));
  expect(isObjectNotFound(statusOf(missing.raw), 'nope')).toBe(true);
  expect(await admin.getOptional(crPath(kube.namespace, 'repos', 'nope'), 'nope')).toBeUndefined();
  const unserved = `/apis/core.jr2.dev/${CR_VERSION}/namespaces/${kube.namespace}/widgets`;
  const noType = await admin.send('GET', `${unserved}/nope`);
  expect(noType.status).toBe(404);
  expect(isObjectNotFound(statusOf(noType.raw), 'nope')).toBe(false);
  await expect(admin.getOptional(`${unserved}/nope`, 'nope')).rejects.toThrow(/answered 404/);
  await expect(admin.list(unserved)).rejects.toThrow(/answered 404/);
});

test('a Secret is checked by its metadata only', async () => {
  const secrets = `/api/v1/namespaces/${kube.namespace}/secrets`;
  await kubeExpect(kube.admin, 'POST', secrets, { metadata: { name: 'clone' }, stringData: { token: 's3cret' } });
  expect(await admin.exists(`${secrets}/clone`, 'clone')).toBe(true);
  expect(await admin.exists(`${secrets}/absent`, 'absent')).toBe(false);
  const partial = await admin.send('GET', `${secrets}/clone`, undefined, 'application/json', METADATA_ONLY);
  expect(partial.body).toMatchObject({ kind: 'PartialObjectMetadata' });
  expect(partial.body).not.toHaveProperty('data');
  expect(partial.raw.body.toString()).not.toContain(Buffer.from('s3cret').toString('base64'));
});

test('a watch whose resourceVersion expired (200, then ERROR 410) re-lists and sees the object', async () => {
  const collection = crPath(kube.namespace, 'repos');
  await admin.post(collection, repo('watched', 'https://git.example/w.git'));
  let lists = 0;
  // The first list claims an old version with the object absent: the real server then expires the watch.
  const stale = {
    connection: admin.connection,
    call: admin.call.bind(admin),
    list: async (path: string, timeoutMs?: number): Promise<KubeList> =>
      lists++ === 0 ? { items: [], resourceVersion: '1' } : admin.list(path, timeoutMs),
  };
  const outcome = await watchObject(stale, systemClock, collection, 'watched', (o) => o?.metadata?.name, 10_000);
  expect(outcome).toEqual({ decided: true, value: 'watched' });
  expect(lists).toBe(2);
});

test('tls-server-name: a DNS name of the serving certificate is accepted, a name it lacks is refused', async () => {
  // The API server's self-signed certificate names 127.0.0.1 and DNS:kubernetes(.default(.svc)).
  const named = (tlsServerName: string) => new KubeClient({ ...admin.connection, tlsServerName });
  const kubernetes = named('kubernetes');
  const wrong = named('wrong.example');
  try {
    await expect(kubernetes.get(`/api/v1/namespaces/${kube.namespace}`)).resolves.toMatchObject({ kind: 'Namespace' });
    const error = await wrong.get(`/api/v1/namespaces/${kube.namespace}`).catch((e: unknown) => e);
    expect((error as Error).message).toContain(
      "does not match certificate's altnames: Host: wrong.example. is not in the cert's altnames: DNS:kubernetes",
    );
    expect((error as Error).message).toContain('the certificate does not carry tls-server-name wrong.example');
  } finally {
    kubernetes.close();
    wrong.close();
  }
});

test("an exec plugin's token (the kubeconfig's env) authenticates; one past its bound fails naming it", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kube-exec-'));
  const plugin = path.join(dir, 'token.sh');
  const v1 = 'client.authentication.k8s.io/v1';
  const credential = `{"apiVersion":"${v1}","kind":"ExecCredential","status":{"token":"%s"}}`;
  fs.writeFileSync(plugin, `#!/bin/sh\n[ "$1" = slow ] && exec sleep 120\nprintf '${credential}' "$ADMIN_TOKEN"\n`, {
    mode: 0o700,
  });
  const user = (mode: string) => ({
    exec: {
      apiVersion: v1,
      command: plugin,
      args: [mode],
      env: [{ name: 'ADMIN_TOKEN', value: kube.admin.token }],
      interactiveMode: 'Never',
    },
  });
  const cluster = { server: kube.server, 'certificate-authority': kube.caFile };
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'fast',
    clusters: [{ name: 'test', cluster }],
    users: ['fast', 'slow'].map((name) => ({ name, user: user(name) })),
    contexts: ['fast', 'slow'].map((name) => ({ name, context: { cluster: 'test', user: name } })),
  };
  const kubeconfig = path.join(dir, 'kubeconfig');
  fs.writeFileSync(kubeconfig, stringify(config), { mode: 0o600 });
  const fast = new KubeClient(loadKubeconfig({ kubeconfig }, nodeKubeconfigIo()));
  const slow = new KubeClient(loadKubeconfig({ kubeconfig, context: 'slow' }, nodeKubeconfigIo()), {
    credentials: { readFile: nodeKubeconfigIo().readFile, exec: execCredentialCache(execRunner(300, 4096), {}) },
  });
  try {
    await expect(fast.get(`/api/v1/namespaces/${kube.namespace}`)).resolves.toMatchObject({ kind: 'Namespace' });
    await expect(slow.get(`/api/v1/namespaces/${kube.namespace}`)).rejects.toThrow(
      `plugin "${plugin}" of user "slow" could not run: did not answer within 0.3 s`,
    );
  } finally {
    fast.close();
    slow.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
