/**
 * The fleet bench of issue 30 item 3: one stack (bench/fleet-app.ts) over H real systemd hosts of U units each
 * (systemd-nspawn containers of the test host image, booted at once) and a fake PVE cluster of N nodes with I
 * bridges each, a network apply and M metric servers. Per host count and -parallelism it times the first apply,
 * a clean plan, a drift plan (a unit stopped on every host, a metric server edited), the converge and destroy,
 * checking each did its work; it reads each container's memory, runs pipelined Ansible (forks=20) on the same
 * hosts and units, and prints how time grows with hosts against one host's time scaled, and each ratio against
 * its target (bench/fleet-report.ts). A single-host bench cannot show whether targets in one stack add up or
 * overlap.
 *
 * BENCH_FLEET_HOSTS (1,5,10,20), BENCH_FLEET_UNITS (25), BENCH_FLEET_PARALLELISM (10, terraform's default; a list
 * times each), BENCH_FLEET_NODES (5), BENCH_FLEET_INTERFACES (4), BENCH_FLEET_METRICS (10), BENCH_FLEET_ANSIBLE=0
 * skips Ansible.
 */
import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startPveSimulator, type PveSimulator } from '../src/simulator/pve/server';
import { CdktfProject, type CommandOutcome } from '../test/support/cdktf-project';
import { startSystemdHost, type SystemdHost } from '../test/support/systemd-host';
import { makeCert } from '../test/support/tls';
import { ANSIBLE_CONFIGS, ansibleProject } from './ansible-playbook';
import { fleetKeyEnv } from './fleet-app';
import { startTrace, type PhaseProfile } from './fleet-profile';
import {
  ansibleTable,
  growthTable,
  handlerTable,
  memoryTable,
  profileTable,
  timesTable,
  type AnsibleRun,
  type FleetRun,
  type Phase,
} from './fleet-report';
import { loadText } from './scale-runs';

const run = promisify(execFile);
const env = process.env;
const numbers = (text: string): number[] =>
  text
    .split(',')
    .filter((s) => s.trim() !== '')
    .map(Number);
const HOST_COUNTS = numbers(env.BENCH_FLEET_HOSTS ?? '1,5,10,20');
const PARALLELISMS = numbers(env.BENCH_FLEET_PARALLELISM ?? '10');
const UNITS = Number(env.BENCH_FLEET_UNITS ?? 25);
const NODES = Array.from({ length: Number(env.BENCH_FLEET_NODES ?? 5) }, (_, i) => `n${i + 1}`);
const INTERFACES = Number(env.BENCH_FLEET_INTERFACES ?? 4);
const METRICS = Number(env.BENCH_FLEET_METRICS ?? 10);
const ANSIBLE = env.BENCH_FLEET_ANSIBLE !== '0';
const FORKS = 20;
const TOKEN = 'root@pam!homelab=fake-secret-0000';
/** The unit the drift stops on every host (the first when a host has one). */
const DRIFTED = `hf-fleet-${Math.min(1, UNITS - 1)}.service`;
const CLEAN =
  'systemctl disable --now "hf-fleet-*" >/dev/null 2>&1; rm -f /etc/systemd/system/hf-fleet-*; ' +
  'rm -rf /var/lib/cdktf-homelab; systemctl daemon-reload';

const log = (line: string): void => void process.stderr.write(`[fleet] ${line}\n`);
const load1 = (): number => loadavg()[0] ?? NaN;

/** Inotify instances a booted container holds (its systemd 5, logind and dbus 1 each), and a margin for others'. */
const INOTIFY_PER_HOST = 8;
const INOTIFY_MARGIN = 32;

/**
 * Past fs.inotify.max_user_instances (128 by default, counted over every root process on the machine) a container
 * boots without them ("Failed to create inotify object" on its console) and any other test's container fails to
 * boot at all: 20 hosts hold about 140. Stops before booting, naming the setting.
 */
const checkInotify = (count: number): void => {
  const limit = Number(readFileSync('/proc/sys/fs/inotify/max_user_instances', 'utf8'));
  if (limit >= count * INOTIFY_PER_HOST + INOTIFY_MARGIN) return;
  throw new Error(
    `${count} containers need about ${count * INOTIFY_PER_HOST} inotify instances; fs.inotify.max_user_instances ` +
      `is ${limit}: raise it (sysctl -w fs.inotify.max_user_instances=1024) or set fewer BENCH_FLEET_HOSTS`,
  );
};

/** Boots every host at once, each in its own memory cgroup; if one fails, the others are stopped first. */
const bootAll = async (count: number): Promise<SystemdHost[]> => {
  checkInotify(count);
  // Each host stops its container when this process exits (one 'exit' listener each): 20 are expected, not a leak.
  process.setMaxListeners(Math.max(process.getMaxListeners(), count + 10));
  const booted = await Promise.allSettled(
    Array.from({ length: count }, () => startSystemdHost({ measureMemory: true, stock: true })),
  );
  const up = booted.flatMap((b) => (b.status === 'fulfilled' ? [b.value] : []));
  const failed = booted.find((b): b is PromiseRejectedResult => b.status === 'rejected');
  if (failed === undefined) return up;
  await Promise.all(up.map((host) => host.stop()));
  throw failed.reason;
};

/** How many of the bench's units each host holds as files, and how many run. */
const unitCounts = async (hosts: readonly SystemdHost[]): Promise<string> => {
  const counts = await Promise.all(
    hosts.map(async (host) => {
      const files = await host.exec('ls /etc/systemd/system | grep -c "^hf-fleet-" ; true');
      const active = await host.exec('systemctl list-units --no-legend --state=active "hf-fleet-*" | wc -l');
      return `${files.stdout.trim()}/${active.stdout.trim()}`;
    }),
  );
  return counts.join(' ');
};

type Trace = ReturnType<typeof startTrace>;

const fleetProject = (hosts: readonly SystemdHost[], fake: PveSimulator, caFile: string, trace: Trace) =>
  new CdktfProject('build/bench/fleet-app.js', 'fleet', {
    ...trace.env,
    ...Object.fromEntries(hosts.map((host, index) => [fleetKeyEnv(index), host.privateKey])),
    FLEET_HOSTS: JSON.stringify(hosts.map((h) => ({ host: h.host, port: h.port, hostKey: h.hostKeyFingerprint }))),
    FLEET_UNITS: String(UNITS),
    FLEET_NODES: NODES.join(','),
    FLEET_INTERFACES: String(INTERFACES),
    FLEET_METRICS: String(METRICS),
    PROXMOX_VE_ENDPOINT: fake.url,
    PROXMOX_VE_CA_FILE: caFile,
    PROXMOX_VE_API_TOKEN: TOKEN,
  });

/** A timed and profiled step that must end with one of `codes`, else the bench stops naming it. */
const timed = async (
  trace: Trace,
  label: string,
  step: () => Promise<CommandOutcome>,
  codes = [0],
): Promise<{ seconds: number; profile: PhaseProfile }> => {
  const { result, profile } = await trace.measure(step);
  if (!codes.includes(result.code))
    throw new Error(`${label} exited ${result.code}\n${result.stdout.slice(-3000)}\n${result.stderr}`);
  return { seconds: result.seconds, profile };
};

/** The five phases over `hosts` at one -parallelism, each checked on the hosts and the cluster. */
const fleetRun = async (
  trace: Trace,
  project: CdktfProject,
  hosts: readonly SystemdHost[],
  fake: PveSimulator,
  p: number,
): Promise<FleetRun> => {
  const flags = ['-no-color', `-parallelism=${p}`];
  const tf =
    (...args: string[]) =>
    () =>
      project.terraform(...args, ...flags);
  const want = hosts.map(() => `${UNITS}/${UNITS}`).join(' ');
  const started = load1();
  const apply = await timed(trace, 'first apply', tf('apply', '-auto-approve'));
  const memory = hosts.map((host) => host.memoryBytes() ?? NaN);
  if ((await unitCounts(hosts)) !== want) throw new Error(`after the first apply: ${await unitCounts(hosts)}`);
  const clean = await timed(trace, 'clean plan', tf('plan', '-detailed-exitcode'));
  await Promise.all(hosts.map((host) => host.exec(`systemctl stop ${DRIFTED}`)));
  if (METRICS > 0) fake.setMetricServer('fleet-0', { ...fake.metricServers()['fleet-0'], port: 9999 });
  const drift = await timed(trace, 'drift plan', tf('plan', '-detailed-exitcode'), [2]);
  const converge = await timed(trace, 'converge', tf('apply', '-auto-approve'));
  await timed(trace, 'plan after converge', tf('plan', '-detailed-exitcode'));
  const destroy = await timed(trace, 'destroy', tf('destroy', '-auto-approve'));
  const left = await unitCounts(hosts);
  if (left !== hosts.map(() => '0/0').join(' ')) throw new Error(`after destroy: ${left}`);
  const of = <T>(pick: (step: typeof apply) => T): Record<Phase, T> => ({
    'first apply': pick(apply),
    'clean plan': pick(clean),
    'drift plan': pick(drift),
    converge: pick(converge),
    destroy: pick(destroy),
  });
  const load = [started, load1()] as const;
  return {
    hosts: hosts.length,
    parallelism: p,
    seconds: of((s) => s.seconds),
    load,
    memory,
    profiles: of((s) => s.profile),
  };
};

/** Pipelined Ansible with forks=20 on the same hosts and unit files: apply, --check, converge after the drift. */
const ansibleRun = async (hosts: readonly SystemdHost[]): Promise<AnsibleRun> => {
  const dir = ansibleProject(hosts, UNITS, FORKS);
  const playbook = async (...args: string[]): Promise<number> => {
    const started = process.hrtime.bigint();
    await run('ansible-playbook', ['-i', join(dir, 'hosts.ini'), join(dir, 'fleet.yml'), ...args], {
      cwd: dir,
      env: { ...process.env, ANSIBLE_CONFIG: join(dir, ANSIBLE_CONFIGS.pipelined) },
      maxBuffer: 64 << 20,
    });
    return Number(process.hrtime.bigint() - started) / 1e9;
  };
  try {
    const apply = await playbook();
    const check = await playbook('--check');
    await Promise.all(hosts.map((host) => host.exec(`systemctl stop ${DRIFTED}`)));
    const converge = await playbook();
    return { hosts: hosts.length, apply, check, converge };
  } finally {
    await Promise.all(hosts.map((host) => host.exec(CLEAN)));
    rmSync(dir, { recursive: true, force: true });
  }
};

/** Every -parallelism at one host count, then Ansible on the same hosts. */
const atHostCount = async (
  all: readonly SystemdHost[],
  count: number,
  fake: PveSimulator,
  caFile: string,
  trace: Trace,
) => {
  const hosts = all.slice(0, count);
  const project = fleetProject(hosts, fake, caFile, trace);
  const runs: FleetRun[] = [];
  try {
    await project.must('synth', project.synth());
    await project.must('init', project.terraform('init', '-no-color'));
    for (const p of PARALLELISMS) {
      const done = await fleetRun(trace, project, hosts, fake, p);
      log(`${count} hosts, -parallelism=${p}: ${JSON.stringify(done.seconds)} load ${loadText()}`);
      runs.push(done);
    }
  } finally {
    project.cleanup();
  }
  const ansible = ANSIBLE ? await ansibleRun(hosts) : undefined;
  if (ansible !== undefined) log(`${count} hosts, Ansible: ${JSON.stringify(ansible)} load ${loadText()}`);
  return { runs, ansible };
};

const main = async () => {
  if (ANSIBLE) await run('ansible', ['--version']).catch(() => Promise.reject(new Error('ansible not on PATH')));
  const startLoad = loadText();
  const cert = makeCert();
  const fake = await startPveSimulator({ tls: { key: cert.key, cert: cert.cert }, nodes: NODES });
  const booting = Date.now();
  const hosts = await bootAll(Math.max(...HOST_COUNTS));
  log(`${hosts.length} hosts booted in ${((Date.now() - booting) / 1000).toFixed(1)} s, load ${loadText()}`);
  const idle = hosts.map((host) => host.memoryBytes() ?? NaN);
  const runs: FleetRun[] = [];
  const ansible: AnsibleRun[] = [];
  const trace = startTrace();
  try {
    for (const count of HOST_COUNTS) {
      const measured = await atHostCount(hosts, count, fake, cert.certFile, trace);
      runs.push(...measured.runs);
      if (measured.ansible !== undefined) ansible.push(measured.ansible);
      fake.requests.length = 0; // the fake keeps every request; a long bench would hold them all
    }
  } finally {
    await Promise.all(hosts.map((host) => host.stop()));
    await fake.stop();
    cert.cleanup();
    trace.cleanup();
  }
  const shape = `${UNITS} units per host; cluster of ${NODES.length} nodes × ${INTERFACES} bridges, ${METRICS} servers`;
  console.log(`fleet bench: ${shape}; load (1m 5m 15m) ${startLoad} at start, ${loadText()} at end\n`);
  console.log(`${timesTable(runs)}\n\nHow time grows with hosts:\n\n${growthTable(runs)}\n`);
  if (ansible.length > 0) console.log(`Against Ansible:\n\n${ansibleTable(runs, ansible, FORKS)}\n`);
  console.log(`Container memory after the first apply:\n\n${memoryTable(runs, UNITS, idle)}\n`);
  console.log(`Where the time goes (CPU seconds; others = the rest of the machine):\n\n${profileTable(runs)}\n`);
  console.log(`Handler processes of the first apply and destroy:\n\n${handlerTable(runs)}`);
};

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
