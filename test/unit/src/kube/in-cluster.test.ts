// In-cluster config: the pod's service account and the service environment, or a clear refusal outside a pod.
import { inClusterConnection } from '../../../../src/kube/in-cluster';
import { ioOf, PEM, SECRET } from './kubeconfig-fixtures';

describe('in-cluster config', () => {
  const sa = '/var/run/secrets/kubernetes.io/serviceaccount';
  const files = { [`${sa}/ca.crt`]: PEM('CERTIFICATE'), [`${sa}/token`]: SECRET, [`${sa}/namespace`]: 'jr2\n' };

  test('server from the service env, CA and namespace from the mounted account, the token file re-read on use', () => {
    const conn = inClusterConnection(
      ioOf(files, { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' }),
    );
    expect(conn).toMatchObject({
      server: 'https://[fd00::1]:443',
      namespace: 'jr2',
      auth: { tokenFile: `${sa}/token` },
    });
    expect(conn.caPem?.toString()).toBe(PEM('CERTIFICATE'));
  });

  test('outside a pod it says so instead of guessing', () => {
    expect(() => inClusterConnection(ioOf(files))).toThrow(
      'KUBERNETES_SERVICE_HOST or KUBERNETES_SERVICE_PORT is unset',
    );
    const env = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };
    expect(() => inClusterConnection(ioOf({ [`${sa}/ca.crt`]: 'x' }, env))).toThrow('automountServiceAccountToken');
  });
});
