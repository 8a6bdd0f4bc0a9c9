/**
 * One user project per e2e file against one fake PVE over HTTPS with the file's own tokens: synthesized and
 * initialized once, with an environment the tests change between steps (CdktfProject reads it on every command), so
 * a plan can run with only the read token set. The read-identity files share it, so they cannot drift apart in how
 * they give a plan its tokens or tell which token made a request.
 */
import { basename } from 'node:path';
import { type FakePve, type FakePveOptions, startFakePve, type TokenGrant } from '../fakes/pve/server';
import { CdktfProject } from './cdktf-project';
import { makeCert, type TestCert } from './tls';

export interface PveProject {
  readonly fake: FakePve;
  readonly project: CdktfProject;
  /** The project's environment: PROXMOX_VE_ENDPOINT and _CA_FILE, the file's own, and the tokens a test sets. */
  readonly env: NodeJS.ProcessEnv;
}

/** The token variables a plan or apply may be given: the write token's and the read token's. */
export interface PveSecrets {
  readonly PROXMOX_VE_API_TOKEN?: string;
  readonly PVE_READ?: string;
}

export const usePveProject = (
  app: string,
  stack: string,
  setup: { tokens: Readonly<Record<string, TokenGrant>>; env: NodeJS.ProcessEnv } & FakePveOptions,
): (() => PveProject) => {
  let started: PveProject | undefined;
  let cert: TestCert | undefined;
  beforeAll(async () => {
    cert = makeCert();
    const { env: own, ...options } = setup;
    const fake = await startFakePve({ ...options, tls: { key: cert.key, cert: cert.cert } });
    const env = { PROXMOX_VE_ENDPOINT: fake.url, PROXMOX_VE_CA_FILE: cert.certFile, ...own };
    const project = new CdktfProject(app, stack, env);
    started = { fake, project, env };
    await project.must('synth', project.synth());
    await project.must('init', project.terraform('init', '-no-color'));
  });
  afterAll(async () => {
    console.log(`${basename(expect.getState().testPath ?? app)} timings (s): ${started?.project.report()}`);
    await started?.fake.stop();
    started?.project.cleanup();
    cert?.cleanup();
  });
  return () => {
    if (started === undefined) throw new Error('the PVE project is not set up yet (use it inside a test)');
    return started;
  };
};

/** Makes `secrets` the only PVE tokens in the project's environment. */
export const onlyTokens = ({ env }: PveProject, secrets: PveSecrets): void => {
  delete env.PVE_READ;
  delete env.PROXMOX_VE_API_TOKEN;
  Object.assign(env, secrets);
};

/** A plan with `secrets` as the only PVE tokens in the environment. */
export const planWith = (pve: PveProject, secrets: PveSecrets) => {
  onlyTokens(pve, secrets);
  return pve.project.terraform('plan', '-detailed-exitcode', '-no-color');
};

/** The token ids of the fake's requests since `from`, each once. */
export const tokensSince = ({ fake }: PveProject, from: number): Array<string | undefined> => [
  ...new Set(fake.requests.slice(from).map((r) => r.auth)),
];
