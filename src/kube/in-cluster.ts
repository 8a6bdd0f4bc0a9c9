/**
 * The connection of a handler running in a pod: the API server from KUBERNETES_SERVICE_HOST/PORT, trust and identity
 * from the mounted service account. Refuses, naming what is missing, rather than falling back to a kubeconfig.
 */
import * as path from 'node:path';
import { HandlerError } from '../core/errors';
import type { KubeConnection, KubeconfigIo } from './connection';

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

const notInPod = (detail: string) =>
  new HandlerError('Not running in a Kubernetes pod', `${detail}; use a kubeconfig instead of inCluster`);

export const inClusterConnection = (io: KubeconfigIo, dir = SERVICE_ACCOUNT_DIR): KubeConnection => {
  const host = io.env.KUBERNETES_SERVICE_HOST;
  const port = io.env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) throw notInPod('KUBERNETES_SERVICE_HOST or KUBERNETES_SERVICE_PORT is unset');
  const caPem = io.readFile(path.join(dir, 'ca.crt'));
  if (!caPem) throw notInPod(`${dir}/ca.crt does not exist`);
  const tokenFile = path.join(dir, 'token');
  if (!io.readFile(tokenFile)) throw notInPod(`${tokenFile} does not exist (is automountServiceAccountToken off?)`);
  return {
    origin: 'in-cluster service account',
    server: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    caPem,
    insecureSkipTlsVerify: false,
    namespace: io.readFile(path.join(dir, 'namespace'))?.toString('utf8').trim() || 'default',
    auth: { tokenFile },
  };
};
