/**
 * A read-only identity beside the write one (issue 19 item 1) against the REAL API server with RBAC: a plan given
 * a read kubeconfig holding only the `reader` user (get/list/watch on Repos) reads and shows drift while the write
 * kubeconfig does not even exist; the apply writes with the write context; the reader cannot write (403 from
 * RBAC); and a readContext in the one kubeconfig does the same as a second file.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { stringify } from 'yaml';
import { kubeDomain } from '../../../handlers/kube/domain';
import type { RepoSpec } from '../../../src/kube/kube-repo';
import { useKubeApiServer, type KubeApiServer } from '../../support/kube-apiserver';
import { CR_VERSION, crPath } from '../../support/kube-crds';
import { kubeRequest } from '../../support/kube-http';
import { invoke, invokeBatch } from '../../support/run-handler';

const server = useKubeApiServer();
let kube: KubeApiServer;
let readOnly: string;
beforeAll(() => {
  kube = server();
  readOnly = path.join(path.dirname(kube.kubeconfig), 'read-only.kubeconfig');
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'reader',
    clusters: [{ name: 'test', cluster: { server: kube.server, 'certificate-authority': kube.caFile } }],
    users: [{ name: 'reader', user: { token: kube.reader.token } }],
    contexts: [{ name: 'reader', context: { cluster: 'test', user: 'reader', namespace: kube.namespace } }],
  };
  fs.writeFileSync(readOnly, stringify(config), { mode: 0o600 });
});

const spec = (key: string): RepoSpec => ({
  namespace: kube.namespace,
  key,
  version: CR_VERSION,
  url: `git@git.example:me/${key}.git`,
  identity: `git.example/me/${key}`,
  credentials: [{ match: 'git.example/', ssh: { secret: 'deploy-key' } }],
  refreshInterval: '5m',
});
const plan = (target: object, key: string) =>
  invokeBatch(kubeDomain(), target, { repo: { kind: 'kube-repo', spec: spec(key) } });

test('a plan with only the read kubeconfig shows drift; the apply writes with the write context', async () => {
  const missing = path.join(path.dirname(kube.kubeconfig), 'not-here.kubeconfig');
  const split = { name: 'test', kubeconfig: missing, readKubeconfig: readOnly };
  const before = await plan(split, 'split');
  expect(before).toMatchObject({ code: 0 });
  expect(before.result?.['repo.in_sync']).toBe('false');
  expect(before.result?.['repo.summary']).toMatch(/absent/);
  const failed = await invoke(kubeDomain(), 'kube-repo', 'apply', split, spec('split'));
  expect(failed.stderr).toMatch(/not-here\.kubeconfig does not exist/);
  const written = { ...split, kubeconfig: kube.kubeconfig, context: 'admin' };
  expect(await invoke(kubeDomain(), 'kube-repo', 'apply', written, spec('split'))).toMatchObject({ code: 0 });
  expect((await plan(split, 'split')).result?.['repo.in_sync']).toBe('true');
});

test('the reader cannot write: RBAC refuses its apply and the Repo is not created', async () => {
  const asReader = { name: 'test', kubeconfig: readOnly };
  const applied = await invoke(kubeDomain(), 'kube-repo', 'apply', asReader, spec('refused'));
  expect(applied.code).toBe(1);
  expect(applied.stderr).toMatch(/403/);
  const live = await kubeRequest(kube.admin, 'GET', crPath(kube.namespace, 'repos', 'refused'));
  expect(live.status).toBe(404);
});

test('a readContext in the one kubeconfig reads as the reader, and one context still serves both', async () => {
  const split = { name: 'test', kubeconfig: kube.kubeconfig, context: 'admin', readContext: 'reader' };
  expect((await plan(split, 'ctx')).result?.['repo.summary']).toMatch(/absent/);
  expect(await invoke(kubeDomain(), 'kube-repo', 'apply', split, spec('ctx'))).toMatchObject({ code: 0 });
  expect((await plan(split, 'ctx')).result?.['repo.in_sync']).toBe('true');
  expect((await plan({ name: 'test', kubeconfig: kube.kubeconfig }, 'ctx')).result?.['repo.in_sync']).toBe('true');
});
