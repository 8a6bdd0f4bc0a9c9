/**
 * Our systemd units against Ansible on the same host, key and unit files, at N units (default 50):
 * apply from nothing, a drift check with nothing changed, and the converge after two units were
 * stopped by hand. Medians of BENCH_ROUNDS (3) rounds, printed as ratios measured in the same run.
 */
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CdktfProject } from '../test/support/cdktf-project';
import { startSystemdHost, type SystemdHost } from '../test/support/systemd-host';
import { ansibleProject } from './ansible-playbook';

const run = promisify(execFile);
const UNITS = Number(process.env.BENCH_UNITS ?? 50);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PARALLELISM = process.env.BENCH_PARALLELISM ?? '10';
const STEPS = ['apply from nothing', 'drift check, nothing changed', 'converge, two units stopped'] as const;
const TARGETS: Record<(typeof STEPS)[number], number | undefined> = {
  'apply from nothing': 1 / 3,
  'drift check, nothing changed': 1 / 20,
  'converge, two units stopped': undefined,
};

type Times = Record<(typeof STEPS)[number], number[]>;
const empty = (): Times => ({
  'apply from nothing': [],
  'drift check, nothing changed': [],
  'converge, two units stopped': [],
});

const seconds = async (what: string, step: () => Promise<{ code?: number }>, ok = [0]): Promise<number> => {
  const started = process.hrtime.bigint();
  const outcome = await step();
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  if (!ok.includes(outcome.code ?? 0))
    throw new Error(`${what} exited ${outcome.code}: ${JSON.stringify(outcome).slice(-2000)}`);
  return elapsed;
};

const stopTwo = (host: SystemdHost) => host.exec('systemctl stop hf-fleet-3.service hf-fleet-7.service');
const clean = (host: SystemdHost) =>
  host.exec(
    'systemctl disable --now "hf-fleet-*" >/dev/null 2>&1; rm -f /etc/systemd/system/hf-fleet-*; ' +
      'rm -rf /var/lib/cdktf-homelab; systemctl daemon-reload',
  );

const ours = async (host: SystemdHost, project: CdktfProject, times: Times) => {
  const tf =
    (...args: string[]) =>
    () =>
      project.terraform(...args, '-no-color', `-parallelism=${PARALLELISM}`);
  times['apply from nothing'].push(await seconds('terraform apply', tf('apply', '-auto-approve')));
  times['drift check, nothing changed'].push(await seconds('terraform plan', tf('plan', '-detailed-exitcode')));
  await stopTwo(host);
  times['converge, two units stopped'].push(await seconds('terraform apply', tf('apply', '-auto-approve')));
  await project.must(
    'destroy',
    project.terraform('destroy', '-auto-approve', '-no-color', `-parallelism=${PARALLELISM}`),
  );
};

const ansible = async (host: SystemdHost, dir: string, times: Times) => {
  const playbook =
    (...args: string[]) =>
    async () => {
      try {
        await run('ansible-playbook', ['-i', join(dir, 'hosts.ini'), join(dir, 'fleet.yml'), ...args], {
          cwd: dir,
          env: { ...process.env, ANSIBLE_CONFIG: join(dir, 'ansible.cfg') },
          maxBuffer: 64 << 20,
        });
        return { code: 0 };
      } catch (error) {
        return error as { code?: number };
      }
    };
  times['apply from nothing'].push(await seconds('ansible-playbook', playbook()));
  times['drift check, nothing changed'].push(await seconds('ansible-playbook --check', playbook('--check')));
  await stopTwo(host);
  times['converge, two units stopped'].push(await seconds('ansible-playbook', playbook()));
  await clean(host);
};

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

const main = async () => {
  const host = await startSystemdHost();
  const project = new CdktfProject('build/examples/probes.js', 'probes', {
    HOMELAB_SSH_HOST: host.host,
    HOMELAB_SSH_PORT: String(host.port),
    HOMELAB_SSH_HOST_KEY: host.hostKeyFingerprint,
    HOMELAB_SSH_KEY: host.privateKey,
    HOMELAB_FLEET: String(UNITS),
  });
  const dir = ansibleProject(host, UNITS);
  const [ourTimes, theirTimes] = [empty(), empty()];
  try {
    await project.must('synth', project.synth());
    await project.must('init', project.terraform('init', '-no-color'));
    for (let round = 0; round < ROUNDS; round += 1) {
      await ours(host, project, ourTimes);
      await ansible(host, dir, theirTimes);
      // Each round on stderr as it ends: a long run interrupted still says what it measured.
      const row = (times: Times) => STEPS.map((step) => times[step].at(-1)?.toFixed(1)).join(' / ');
      console.error(`round ${round + 1}: ours ${row(ourTimes)} s; Ansible ${row(theirTimes)} s`);
    }
  } finally {
    await host.stop();
    project.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
  const version = (await run('ansible', ['--version'])).stdout.split('\n')[0];
  console.log(
    `${UNITS} units on one systemd host, median of ${ROUNDS} rounds; ` +
      `terraform -parallelism=${PARALLELISM}; ${version}, pipelining`,
  );
  console.log('| step | cdktf-homelab (s) | Ansible (s) | ratio | target |\n| --- | --- | --- | --- | --- |');
  for (const step of STEPS) {
    const [a, b] = [median(ourTimes[step]), median(theirTimes[step])];
    const target = TARGETS[step];
    const goal = target === undefined ? '-' : `≤ ${target.toFixed(2)}`;
    console.log(`| ${step} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(a / b).toFixed(2)} | ${goal} |`);
  }
};

void main().catch((error) => {
  console.error(error);
  process.exit(1);
});
