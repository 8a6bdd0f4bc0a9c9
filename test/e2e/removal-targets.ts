/**
 * The targets and project of the removal app (removal-app.ts), shared by the tests that run it (removal.test.ts,
 * rename.test.ts): the fake PVE, the real systemd host and the kube-apiserver's namespace, and a project whose
 * cdktf.json names the app, since the record a removal or a rename is told from is kept for that app alone.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FakePve, startFakePve } from '../fakes/pve/server';
import { CdktfProject } from '../support/cdktf-project';
import type { KubeApiServer } from '../support/kube-apiserver';
import { startSystemdHost, type SystemdHost } from '../support/systemd-host';
import { makeCert } from '../support/tls';

export interface RemovalTargets {
  readonly fake: FakePve;
  readonly host: SystemdHost;
  readonly project: CdktfProject;
  /** Stops the targets and removes the project, logging its timings under `label`. */
  stop(label: string): Promise<void>;
}

/** The targets started, the app synthesized with every object (step `all`) and the stack initialised. */
export const startRemovalTargets = async (kube: KubeApiServer, secret: string): Promise<RemovalTargets> => {
  // What started so far is stopped if a later step fails: a systemd host left running outlives the test run.
  const started: Array<() => unknown> = [];
  const stopAll = async () => {
    for (const stop of started.reverse()) await stop();
  };
  try {
    const cert = makeCert();
    started.push(() => cert.cleanup());
    const tokens = { 'root@pam!homelab': { secret, privileges: 'modify' as const } };
    const fake = await startFakePve({ tls: { key: cert.key, cert: cert.cert }, tokens, nodes: ['n1'] });
    started.push(() => fake.stop());
    const host = await startSystemdHost();
    started.push(() => host.stop());
    const project = new CdktfProject('build/e2e/removal-app.js', 'removal', {
      PROXMOX_VE_ENDPOINT: fake.url,
      PROXMOX_VE_CA_FILE: cert.certFile,
      PROXMOX_VE_API_TOKEN: `root@pam!homelab=${secret}`,
      HOMELAB_SSH_HOST: host.host,
      HOMELAB_SSH_PORT: String(host.port),
      HOMELAB_SSH_HOST_KEY: host.hostKeyFingerprint,
      HOMELAB_SSH_KEY: host.privateKey,
      HOMELAB_KUBECONFIG: kube.kubeconfig,
      HOMELAB_KUBE_NAMESPACE: kube.namespace,
    });
    started.push(() => project.cleanup());
    const app = join(__dirname, '..', '..', 'build', 'e2e', 'removal-app.js');
    writeFileSync(join(project.dir, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: `node ${app}` }));
    await project.must('synth (all)', project.synth({ HOMELAB_REMOVAL_STEP: 'all' }));
    await project.must('init', project.terraform('init', '-no-color'));
    const stop = async (label: string) => {
      console.log(`${label} e2e timings (s): ${project.report()}`);
      await stopAll();
    };
    return { fake, host, project, stop };
  } catch (error) {
    await stopAll();
    throw error;
  }
};
