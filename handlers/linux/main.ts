/** The Linux handler bundle: `node linux.js batch read`, or `node linux.js <kind> <read|apply|destroy>`. */
import { main } from '../../src/core/handler-cli';
import { linuxDomain } from './domain';

main(linuxDomain());
