// jest globalTeardown: stops the run's shared kube API server, if a file started one, and removes the run directory.
import { kubeRunTeardown } from './kube-shared';
import { runTeardown } from './run-shared';

export default async (): Promise<void> => {
  await kubeRunTeardown();
  runTeardown();
};
