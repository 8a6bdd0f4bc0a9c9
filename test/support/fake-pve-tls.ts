/**
 * A fresh fake PVE over HTTPS for each test of a file, with one CA for the file: the handler target
 * that reaches it (endpoint, token variable, CA file) comes with it, so contract tests cannot drift
 * apart in how they connect.
 */
import { type FakePve, type FakePveOptions, startFakePve, type TokenGrant } from '../fakes/pve/server';
import { makeCert, type TestCert } from './tls';

export const useFakePveOverTls = (tokens: Readonly<Record<string, TokenGrant>>) => {
  let fake: FakePve | undefined;
  let cert: TestCert | undefined;
  beforeAll(() => {
    cert = makeCert();
  });
  afterAll(() => cert?.cleanup());
  const start = async (options: FakePveOptions = {}) => {
    fake = await startFakePve({ tls: { key: cert!.key, cert: cert!.cert }, tokens, ...options });
  };
  beforeEach(() => start());
  afterEach(() => fake?.stop());
  const current = (): FakePve => {
    if (fake === undefined) throw new Error('the fake PVE runs only inside a test');
    return fake;
  };
  return {
    fake: current,
    /** Replaces this test's fake with one started with `options` (an older PVE, say). */
    restart: async (options: FakePveOptions) => {
      await current().stop();
      await start(options);
    },
    target: () => ({ endpoints: [current().url], tokenEnv: 'PROXMOX_VE_API_TOKEN', caFile: cert!.certFile }),
  };
};
