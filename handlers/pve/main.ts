/** The PVE handler bundle: `node pve.js <kind> <read|apply|destroy>`. */
import { setFlagsFromString } from 'node:v8';
import { main } from '../../src/core/handler-cli';

// undici parses HTTP with a WebAssembly llhttp; V8's optimising tier-up of it outlives the request
// and holds up process exit (measured: 0.45 s per read, 0.26 s with baseline code only). A plan
// runs one read per object, so only the baseline compiler is used.
setFlagsFromString('--liftoff-only');

main({
  'metric-server': async () => {
    const [{ metricServerHandler }, { PveClient }, { parsePveTarget }] = await Promise.all([
      import('./metric-server'),
      import('../../src/pve/client'),
      import('../../src/pve/target'),
    ]);
    return metricServerHandler((target) => new PveClient(parsePveTarget(target)));
  },
});
