/** The PVE handler bundle: `node pve.js <kind> <read|apply|destroy>`. */
import { main } from '../../src/core/handler-cli';

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
