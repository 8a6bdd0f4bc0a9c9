/**
 * An identity holding exactly the RBAC rules a test names (a ServiceAccount, its Role and RoleBinding, a token from
 * the TokenRequest API) and a kubeconfig for it, so a test running as it fails with 403 if the documented rules
 * ever miss a verb the handlers use.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { stringify } from 'yaml';
import type { KubeApiServer } from './kube-apiserver';
import { kubeExpect } from './kube-http';

export interface RbacRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
}

export interface ScopedIdentity {
  readonly token: string;
  /** Contexts `reader` (current, read-only) and `scoped` (this identity): a stack must name its context. */
  readonly kubeconfig: string;
}

const TOKEN_SECONDS = 3600;

/** Creates ServiceAccount `name` in the server's namespace, bound to a Role of `rules`, and a kubeconfig for it. */
export const scopedIdentity = async (
  kube: KubeApiServer,
  name: string,
  rules: readonly RbacRule[],
): Promise<ScopedIdentity> => {
  const core = `/api/v1/namespaces/${kube.namespace}`;
  const rbac = `/apis/rbac.authorization.k8s.io/v1/namespaces/${kube.namespace}`;
  await kubeExpect(kube.admin, 'POST', `${core}/serviceaccounts`, { metadata: { name } });
  await kubeExpect(kube.admin, 'POST', `${rbac}/roles`, { metadata: { name }, rules });
  await kubeExpect(kube.admin, 'POST', `${rbac}/rolebindings`, {
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
    subjects: [{ kind: 'ServiceAccount', name, namespace: kube.namespace }],
  });
  const request = {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: { expirationSeconds: TOKEN_SECONDS },
  };
  const issued = await kubeExpect<{ status: { token: string } }>(
    kube.admin,
    'POST',
    `${core}/serviceaccounts/${name}/token`,
    request,
  );
  const token = issued.status.token;
  const kubeconfig = path.join(path.dirname(kube.kubeconfig), `${name}.kubeconfig`);
  const users = [
    { name: 'reader', user: { token: kube.reader.token } },
    { name, user: { token } },
  ];
  const contexts = [
    { name: 'reader', context: { cluster: 'test', user: 'reader', namespace: kube.namespace } },
    { name: 'scoped', context: { cluster: 'test', user: name, namespace: kube.namespace } },
  ];
  const clusters = [{ name: 'test', cluster: { server: kube.server, 'certificate-authority': kube.caFile } }];
  const config = { apiVersion: 'v1', kind: 'Config', 'current-context': 'reader', clusters, contexts, users };
  fs.writeFileSync(kubeconfig, stringify(config), { mode: 0o600 });
  return { token, kubeconfig };
};
