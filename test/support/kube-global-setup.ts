// jest globalSetup: a private run directory through which the kube test files share one API server (kube-shared.ts).
import { kubeRunSetup } from './kube-shared';

export default kubeRunSetup;
