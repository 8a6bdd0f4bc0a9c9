// jest globalSetup: the run directory through which the test files share fixtures, whichever worker runs them.
import { runSetup } from './run-shared';

export default runSetup;
