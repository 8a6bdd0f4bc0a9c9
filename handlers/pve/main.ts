/** The PVE handler bundle: `node pve.js batch read`, or `node pve.js <kind> <read|apply|destroy>`. */
import { main } from '../../src/core/handler-cli';
import { pveDomain } from './domain';

main(pveDomain());
