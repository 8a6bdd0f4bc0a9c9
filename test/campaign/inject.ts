/**
 * One faulted apply (a destroy of the whole state for `destroy-whole`): terraform started on the stack, the fault
 * delivered at the instant the plan says (or a PVE reload armed to misbehave), terraform's end awaited (bounded),
 * what it left running noted, and the targets made reachable again (sshd answering, the API server restarted, the
 * held reload ended), as the world would be when a user runs the next apply.
 */
import { call } from '../fakes/pve/test-client';
import { terraformBinary, testProcessEnv } from '../support/toolchain';
import type { FaultPlan } from './faults';
import {
  alive,
  destroysIn,
  handlersIn,
  type HandlerProcess,
  sleep,
  startGroup,
  waitFor,
  type Running,
} from './processes';
import { plan as planStack, type Stand } from './stand';

export interface Injected {
  /** Whether the fault hit while the apply ran (for a PVE fault: the node's reload was asked for). */
  readonly landed: boolean;
  readonly exitCode: number;
  readonly output: string;
  /** Handler processes that kept running after terraform ended, and for how long. */
  readonly orphans: string[];
  /**
   * The exit of a plan started as terraform ended while handlers outlived it (what a user who plans at once
   * sees): 0 clean, 2 changes, 1 failed; undefined when none outlived it.
   */
  readonly planBesideOrphans?: number;
}

const EXIT_MS = 180_000;
/** How long a handler may outlive terraform before the campaign kills it. */
const ORPHAN_MS = 15_000;
const FAILED_RELOAD = 'command ifreload -a failed: exit code 1';

const armPve = (stand: Stand, plan: FaultPlan): void => {
  const { pve } = stand.targets;
  const node = plan.node as string;
  if (plan.type === 'pve-reload-hang') pve.setReload(node, { durationMs: Infinity });
  if (plan.type === 'pve-reload-fail') pve.setReload(node, { exitstatus: FAILED_RELOAD });
  if (plan.type === 'pve-reload-drop' && plan.drop === 'polls') pve.setReload(node, { cutPolls: 1000 });
  if (plan.type === 'pve-reload-drop' && plan.drop === 'request') {
    pve.misbehave('PUT', `^/api2/json/nodes/${node}/network$`, { kind: 'reset' }, 1);
  }
};

/** The reload behaves again; a held one ends OK, as a hung ifreload finally does. */
const disarmPve = async (stand: Stand, plan: FaultPlan, reloaded: boolean): Promise<void> => {
  const { pve } = stand.targets;
  const node = plan.node as string;
  pve.setReload(node, {});
  if (plan.type === 'pve-reload-hang') {
    for (const upid of pve.tasks().filter((task) => task.startsWith(`UPID:${node}:`))) pve.finishTask(upid);
  }
  if (plan.type === 'pve-reload-drop' && plan.drop === 'request' && !reloaded) {
    // The armed reset was never used: spend it on a request of ours, so the next apply's reload is not cut.
    await call(pve.url, 'PUT', `/nodes/${node}/network`, { ca: stand.targets.cert.cert, timeoutMs: 5000 }).catch(
      () => undefined,
    );
  }
};

/**
 * Waits for the anchor: terraform's start, a domain's batch apply handler started, or the first destroy process seen
 * (an sh hook or a Node destroy); undefined if terraform ended first.
 */
const awaitAnchor = async (stand: Stand, plan: FaultPlan, terraform: Running) => {
  if (plan.anchor === 'start') return { pid: terraform.pid };
  const found = await waitFor(
    () => {
      if (!terraform.isRunning()) return 'ended' as const;
      if (plan.anchor === 'destroy') return destroysIn(stand.project.stackDir)[0];
      const [domain, verb] = plan.anchor === 'teardown' ? ['linux', 'batch teardown'] : [plan.anchor, 'batch apply'];
      return handlersIn(stand.project.stackDir).find((handler) => handler.domain === domain && handler.verb === verb);
    },
    EXIT_MS,
    plan.anchor === 'destroy' ? 10 : 25,
  );
  return found === 'ended' || found === undefined ? undefined : found;
};

/** Kills the first destroy process of the plan's victim role, `delayMs` after it was seen; false if none came. */
const killDestroy = async (stand: Stand, plan: FaultPlan, terraform: Running): Promise<boolean> => {
  const found = await waitFor(
    () => (terraform.isRunning() ? destroysIn(stand.project.stackDir).find((p) => p.role === plan.victim) : 'ended'),
    EXIT_MS,
    10,
  );
  if (found === undefined || found === 'ended') return false;
  await sleep(plan.delayMs);
  if (!terraform.isRunning() || !alive(found.pid)) return false;
  process.kill(found.pid, 'SIGKILL');
  return true;
};

/** Stops a destroy of the whole state as the plan says: terraform or the teardown (`anchor`) killed, or a Ctrl-C. */
const stopDestroy = (plan: FaultPlan, terraform: Running, anchor: number): boolean => {
  if (plan.stop === 'ctrl-c') return interruptGroup(terraform.pid);
  const victim = plan.stop === 'teardown' ? anchor : terraform.pid;
  if (!alive(victim)) return false;
  process.kill(victim, 'SIGKILL');
  return true;
};

/** SIGINT to terraform's process group, as a terminal's Ctrl-C, and the plan's second one if terraform still runs. */
const ctrlC = async (plan: FaultPlan, terraform: Running): Promise<boolean> => {
  if (!interruptGroup(terraform.pid)) return false;
  if (plan.secondPressMs === undefined) return true;
  await sleep(plan.secondPressMs);
  if (terraform.isRunning()) interruptGroup(terraform.pid);
  return true;
};

/** SIGINT to group `pid`; false when the group is gone (terraform ended just before, its close not seen yet). */
const interruptGroup = (pid: number): boolean => {
  try {
    process.kill(-pid, 'SIGINT');
    return true;
  } catch {
    return false;
  }
};

/** Delivers a timed fault; true when it hit while terraform still ran. */
const deliver = async (stand: Stand, plan: FaultPlan, terraform: Running): Promise<boolean> => {
  if (plan.type === 'destroy-sigkill') return killDestroy(stand, plan, terraform);
  const anchor = await awaitAnchor(stand, plan, terraform);
  if (anchor === undefined) return false;
  await sleep(plan.delayMs);
  if (!terraform.isRunning()) return false;
  const { relay, host, kube } = stand.targets;
  switch (plan.type) {
    case 'terraform-sigkill':
      process.kill(terraform.pid, 'SIGKILL');
      return true;
    case 'terraform-sigterm':
      process.kill(terraform.pid, 'SIGTERM');
      return true;
    case 'ctrl-c':
      return ctrlC(plan, terraform);
    case 'destroy-whole':
      return stopDestroy(plan, terraform, anchor.pid);
    case 'handler-sigkill':
      if (!alive(anchor.pid)) return false;
      process.kill(anchor.pid, 'SIGKILL');
      return true;
    case 'ssh-cut':
      relay.cut();
      return true;
    case 'sshd-kill':
      // From outside any session (systemd-run), so the kill does not die with the connection it cuts.
      await host.exec('systemd-run --quiet --collect -- pkill -KILL -x sshd').catch(() => undefined);
      return true;
    case 'kube-apiserver-kill':
      kube.kill();
      return true;
    default:
      return false;
  }
};

/** Waits for the host's sshd to answer again (systemd restarts it after a kill). */
const hostAnswers = async (stand: Stand): Promise<void> => {
  for (const deadline = Date.now() + 60_000; ; await sleep(200)) {
    const ok = await stand.targets.host.exec('true').then(
      (result) => result.code === 0,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error('the host does not answer over SSH 60 s after the fault');
  }
};

/** Handlers outliving terraform (`first`): noted, given ORPHAN_MS to end, then killed. */
const settleOrphans = async (stand: Stand, first: readonly HandlerProcess[]): Promise<string[]> => {
  const started = Date.now();
  const endedAt = new Map<number, number>();
  await waitFor(
    () => {
      const running = handlersIn(stand.project.stackDir).map((handler) => handler.pid);
      for (const { pid } of first) if (!running.includes(pid) && !endedAt.has(pid)) endedAt.set(pid, Date.now());
      return running.length === 0 ? true : undefined;
    },
    ORPHAN_MS,
    100,
  );
  const left = handlersIn(stand.project.stackDir);
  for (const handler of left) process.kill(handler.pid, 'SIGKILL');
  const after = (pid: number) => (((endedAt.get(pid) ?? Date.now()) - started) / 1000).toFixed(1);
  return first.map((handler) =>
    left.some((still) => still.pid === handler.pid)
      ? `${handler.domain} ${handler.verb} (pid ${handler.pid}) ran ${after(handler.pid)} s after terraform: killed`
      : `${handler.domain} ${handler.verb} (pid ${handler.pid}) ended ${after(handler.pid)} s after terraform`,
  );
};

export const faultedApply = async (stand: Stand, plan: FaultPlan): Promise<Injected> => {
  const mark = stand.targets.pve.requests.length;
  if (plan.node !== undefined) armPve(stand, plan);
  const env = {
    ...testProcessEnv(),
    ...stand.targets.env,
    CHECKPOINT_DISABLE: '1',
    TF_IN_AUTOMATION: '1',
    TF_INPUT: '0',
  };
  const args = [plan.type === 'destroy-whole' ? 'destroy' : 'apply', '-auto-approve', '-no-color', '-lock-timeout=30s'];
  const terraform = startGroup(terraformBinary(), args, stand.project.stackDir, env);
  const delivered = plan.node === undefined ? deliver(stand, plan, terraform) : Promise.resolve(false);
  const timer = setTimeout(() => process.kill(-terraform.pid, 'SIGKILL'), EXIT_MS);
  const [hit, ended] = await Promise.all([delivered, terraform.exited]);
  clearTimeout(timer);
  const first = handlersIn(stand.project.stackDir);
  // A plan at once, beside them: its read races their last writes; a clean one is checked once they end.
  const planning = first.length > 0 ? planStack(stand) : undefined;
  const orphans = await settleOrphans(stand, first);
  const beside = planning === undefined ? undefined : (await planning).code;
  try {
    process.kill(-terraform.pid, 'SIGKILL'); // whatever else of that apply is left (a provider plugin)
  } catch {
    // the group is gone already
  }
  let landed = hit;
  if (plan.node !== undefined) {
    const reloaded = stand.targets.pve.requests
      .slice(mark)
      .some((request) => request.method === 'PUT' && request.path === `/api2/json/nodes/${plan.node}/network`);
    landed = reloaded;
    await disarmPve(stand, plan, reloaded);
  }
  if (plan.type === 'sshd-kill') await hostAnswers(stand);
  if (plan.type === 'kube-apiserver-kill') await stand.targets.kube.ensureUp(`${stand.runtimeDir}/../apiserver.log`);
  return {
    landed,
    exitCode: ended.code,
    output: ended.output,
    orphans,
    ...(beside === undefined ? {} : { planBesideOrphans: beside }),
  };
};
