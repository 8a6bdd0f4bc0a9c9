/**
 * The Repo and Sandbox custom resource definitions the kube tests install, shaped from seed 004 (Repo spec; the
 * SandboxObject's spec.repos[].key and status.repos[]), and the wait for Established so no test races the type.
 */
import { CR_GROUP, REPOS, SANDBOXES } from '../../src/kube/names';
import { kubeExpect, kubeRequest, type KubeCaller } from './kube-http';

export const CR_VERSION = 'v1alpha1';

const str = { type: 'string' };
const crd = (kind: string, plural: string, spec: object, status: object) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.${CR_GROUP}` },
  spec: {
    group: CR_GROUP,
    scope: 'Namespaced',
    names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
    versions: [
      {
        name: CR_VERSION,
        served: true,
        storage: true,
        // The status is the cache agent's: written through /status, never by a spec patch (as a real operator's).
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: 'object', properties: { spec, status } } },
      },
    ],
  },
});

/** A Repo: what the stack states (url, secretRef, refreshInterval); the per-node status is the agent's. */
export const REPO_CRD = crd(
  'Repo',
  REPOS,
  {
    type: 'object',
    required: ['url'],
    properties: { url: str, secretRef: { type: 'object', properties: { name: str } }, refreshInterval: str },
  },
  // The seed reads the agent's per-node entries verbatim without showing their shape: keep whatever it writes.
  { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
);

/** A Sandbox: the repos it mounts by key, and the operator's standing per-key fetch entry. */
export const SANDBOX_CRD = crd(
  'Sandbox',
  SANDBOXES,
  {
    type: 'object',
    'x-kubernetes-preserve-unknown-fields': true,
    properties: {
      repos: { type: 'array', items: { type: 'object', required: ['key'], properties: { key: str } } },
    },
  },
  {
    type: 'object',
    properties: {
      repos: {
        type: 'array',
        items: {
          type: 'object',
          required: ['key'],
          properties: { key: str, asked: str, fetched: str, attempted: str, error: str },
        },
      },
    },
  },
);

type CrdStatus = { status?: { conditions?: Array<{ type: string; status: string }> } };

const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const ESTABLISHED_MS = 30_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Creates (or keeps) a CRD and waits until the API server serves its type. */
export const installCrd = async (admin: KubeCaller, definition: typeof REPO_CRD): Promise<void> => {
  await kubeExpect(admin, 'POST', CRD_PATH, definition, [201, 409]);
  const name = definition.metadata.name;
  const deadline = Date.now() + ESTABLISHED_MS;
  for (;;) {
    const got = await kubeExpect<CrdStatus>(admin, 'GET', `${CRD_PATH}/${name}`);
    const conditions = got.status?.conditions ?? [];
    if (conditions.some((c) => c.type === 'Established' && c.status === 'True')) return;
    if (Date.now() > deadline) throw new Error(`CRD ${name} not Established after ${ESTABLISHED_MS} ms`);
    await sleep(100);
  }
};

/** Deletes a CRD (and with it every object of its type) and waits until it is gone, for missing-type tests. */
export const removeCrd = async (admin: KubeCaller, definition: typeof REPO_CRD): Promise<void> => {
  const path = `${CRD_PATH}/${definition.metadata.name}`;
  await kubeExpect(admin, 'DELETE', path, undefined, [200, 202, 404]);
  const deadline = Date.now() + ESTABLISHED_MS;
  while ((await kubeRequest(admin, 'GET', path)).status !== 404) {
    if (Date.now() > deadline)
      throw new Error(`CRD ${definition.metadata.name} still present after ${ESTABLISHED_MS} ms`);
    await sleep(100);
  }
};

/** The REST path of a custom resource collection or object. */
export const crPath = (namespace: string, plural: string, name?: string) =>
  `/apis/${CR_GROUP}/${CR_VERSION}/namespaces/${namespace}/${plural}${name === undefined ? '' : `/${name}`}`;
