/** The fetch ask the kube fetch unit tests share: repo "site" into Sandbox jr2/agent-1, trigger v1.2.0, 75 s. */
import type { RepoFetchSpec } from '../../../../src/kube/kube-repo-fetch';

export const FETCH_SPEC: RepoFetchSpec = {
  namespace: 'jr2',
  sandbox: 'agent-1',
  key: 'site',
  version: 'v1alpha1',
  trigger: 'v1.2.0',
  budgetSeconds: 75,
};
