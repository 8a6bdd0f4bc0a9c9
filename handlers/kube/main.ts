/** The Kubernetes handler bundle: `node kube.js batch read`, or `node kube.js <kind> <read|apply|destroy>`. */
import { main } from '../../src/core/handler-cli';
import { kubeDomain } from './domain';

main(kubeDomain());
