// One namespace's listed Repos as discover reads them, for the tests of what it declares and leaves out.
import type { LiveKube } from '../../../../src/discover/kube';

/** The Repos of namespace jr2, as a listing holds them; no Secret exists. */
export const liveKube = (repos: unknown[]): LiveKube => ({
  cluster: {},
  clusterId: 'kube',
  version: 'v1alpha1',
  namespaces: [{ namespace: 'jr2', repos }],
  secrets: new Set(),
});
