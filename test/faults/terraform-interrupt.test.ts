/**
 * Ctrl-C to `terraform apply` of examples/systemd.ts while a unit file is half-way across a slow
 * link (a relay in front of the host's sshd): the interrupted handler leaves no temp file and no
 * truncated unit, and the next plan and apply converge to the units as declared.
 */
import { CdktfProject, type Interruptible } from '../support/cdktf-project';
import { startRelay, type Relay } from '../support/tcp-relay';
import { useSystemdHost } from '../support/unit-host';
import { noTempFilesLeft, pollUntil, tempFileSizes, unitFileDigest } from '../support/unit-files';

jest.setTimeout(400_000);

const UNITS = ['hf-agent.service', 'hf-node-check.service', 'hf-node-check.timer'];
// Large enough that the agent's file takes several relay ticks; small enough for one env string.
const DESCRIPTION = `${'homelab-node-agent-'.repeat(4000)}end`;

const { host } = useSystemdHost();
let relay: Relay;
let project: CdktfProject;
let running: Interruptible | undefined;

beforeAll(async () => {
  relay = await startRelay(host().port);
  project = new CdktfProject('build/examples/systemd.js', 'node-check', {
    HOMELAB_SSH_HOST: host().host,
    HOMELAB_SSH_PORT: String(relay.port),
    HOMELAB_SSH_HOST_KEY: host().hostKeyFingerprint,
    HOMELAB_SSH_KEY: host().privateKey,
    TF_VAR_agent_description: DESCRIPTION,
  });
  await project.must('synth', project.synth());
  await project.must('init', project.terraform('init', '-no-color'));
});

afterAll(async () => {
  running?.kill();
  console.log(`terraform interrupt timings (s): ${project?.report()}`);
  await relay?.close();
  project?.cleanup();
});

const state = async (name: string) =>
  (await host().exec(`systemctl show -p ActiveState,UnitFileState -- ${name}`)).stdout;

const INTERRUPTED =
  'an apply interrupted with Ctrl-C mid-write leaves nothing half-written, and the next plan and apply converge';

test(INTERRUPTED, async () => {
  relay.trickle(1024);
  running = project.startTerraform('apply', '-auto-approve', '-no-color');
  let ended = false;
  void running.exited.then(() => (ended = true));
  const seen = await pollUntil(
    'terraform apply with the agent unit partly written',
    async () => {
      if (ended)
        throw new Error(`terraform apply ended before the write was caught:\n${(await running?.exited)?.stdout}`);
      const sizes = await tempFileSizes(host(), 'hf-agent.service');
      return sizes.find((size) => size > 0 && size < DESCRIPTION.length);
    },
    120_000,
  );
  relay.hold();
  running.interrupt();
  const interrupted = await running.exited;
  relay.trickle(Infinity);
  console.log(`interrupted with ${seen} bytes of the agent unit on the host:\n${interrupted.stdout.slice(-1500)}`);
  expect(interrupted.code).not.toBe(0);

  for (const name of UNITS) await noTempFilesLeft(host(), name);
  expect(await unitFileDigest(host(), 'hf-agent.service')).toBe('absent');

  expect((await project.plan('plan (after Ctrl-C)')).code).toBe(2);
  await project.must('apply (after Ctrl-C)', project.terraform('apply', '-auto-approve', '-no-color'));
  expect((await project.plan('plan (converged)')).code).toBe(0);
  for (const name of UNITS) expect(await tempFileSizes(host(), name)).toEqual([]);
  expect(await state('hf-agent.service')).toMatch(/ActiveState=active[\s\S]*UnitFileState=enabled/);
  expect(await state('hf-node-check.timer')).toMatch(/ActiveState=active[\s\S]*UnitFileState=enabled/);
  const agent = (await host().exec('cat /etc/systemd/system/hf-agent.service')).stdout;
  expect(agent).toContain(`Description=${DESCRIPTION}\n`);
});
