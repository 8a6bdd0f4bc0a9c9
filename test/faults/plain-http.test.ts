/**
 * A plain http:// endpoint sends the API token in clear: the construct refuses it at synth unless
 * `insecure: true`, and the handler refuses it again at run time, before any request, for a
 * target written by hand or by an older synth.
 */
import { Testing, TerraformStack } from 'cdktf';
import { ProxmoxCluster } from '../../constructs/pve/cluster';
import { noMemory } from '../../src/core/http/last-good';
import { PveClient } from '../../src/pve/client';
import { pveDomain } from '../../handlers/pve/domain';
import { startFakePve } from '../fakes/pve/server';
import { invoke } from '../support/run-handler';
import { TOKEN_ENV } from '../support/pve-members';

const cluster = (props: { endpoints: string[]; insecure?: boolean }) =>
  new ProxmoxCluster(new TerraformStack(Testing.app(), 'test'), 'pve', props);

/** Synthesizes the stack of a cluster with `props`: where a refused prop fails. */
const synthCluster = (props: { endpoints: string[]; insecure?: boolean }) => () =>
  Testing.synth(TerraformStack.of(cluster(props)));

describe('plain http:// endpoints', () => {
  test('the construct refuses http:// without insecure, naming the prop and the rule', () => {
    expect(synthCluster({ endpoints: ['https://n1:8006', 'http://n2:8006'] })).toThrow(
      'pve: endpoints must be https:// URLs unless insecure is true ' +
        '(a plain http:// endpoint sends the API token in clear), got "http://n2:8006"',
    );
  });

  test('the construct accepts http:// when insecure is set', () => {
    expect(cluster({ endpoints: ['http://n2:8006'], insecure: true }).target).toMatchObject({ insecure: true });
  });

  test('the construct refuses credentials in an endpoint URL', () => {
    expect(synthCluster({ endpoints: ['https://root:pw@n1:8006'] })).toThrow(
      /endpoints must be URLs without user, password, query or fragment/,
    );
  });

  test('the handler refuses an http:// target without insecure, and the token is never sent', async () => {
    const fake = await startFakePve();
    try {
      const table = pveDomain((target, env) => new PveClient(target, env, noMemory));
      const spec = { id: 'plain', type: 'graphite', server: '10.0.0.5', port: 2003, options: {} };
      const run = await invoke(
        table,
        'metric-server',
        'read',
        { endpoints: [fake.url], tokenEnv: 'PROXMOX_VE_API_TOKEN' },
        spec,
        TOKEN_ENV,
      );
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        `batch read: Bad PVE endpoint: ${fake.url} is plain http:// ` +
          '(it would send the credential in clear); use https://, or set insecure: true to allow it',
      );
      expect(fake.requests).toEqual([]);
      const insecure = await invoke(
        table,
        'metric-server',
        'read',
        { endpoints: [fake.url], tokenEnv: 'PROXMOX_VE_API_TOKEN', insecure: true },
        spec,
        TOKEN_ENV,
      );
      expect(insecure.result).toMatchObject({ summary: 'metric server "plain" is absent' });
    } finally {
      await fake.stop();
    }
  });
});
