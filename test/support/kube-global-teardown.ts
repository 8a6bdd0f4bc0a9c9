// jest globalTeardown: stops the run's shared kube API server, if a test file started one (kube-shared.ts).
import { kubeRunTeardown } from './kube-shared';

export default kubeRunTeardown;
