/** The Linux handler bundle: `node linux.js <kind> <read|apply|destroy>`. */
import { main } from '../../src/core/handler-cli';

main({
  'systemd-unit': async () => {
    const [{ systemdUnitHandler }, { connectSsh }] = await Promise.all([import('./systemd-unit'), import('../../src/linux/ssh')]);
    return systemdUnitHandler((target) => connectSsh(target));
  },
});
