/**
 * The faults a round injects, drawn from the round's seed: what (one of FAULT_TYPES), after which event (an
 * anchor: terraform's start, a domain's apply handler starting, the first destroy process starting, or a target's
 * teardown starting) and how long after it. The instant is relative to an event of the apply, so a replay lands in
 * the same step on a faster or slower machine. `destroy-whole` faults a `terraform destroy` of the whole state
 * instead of an apply: the host's teardown removes its units in one run ahead of their hooks (round.ts).
 */
import { childSeed, drawFrom, generator, shuffled } from './rng';
import { PVE_NODES } from './variant';

export const FAULT_TYPES = [
  'terraform-sigkill',
  'terraform-sigterm',
  'handler-sigkill',
  'ssh-cut',
  'sshd-kill',
  'pve-reload-hang',
  'pve-reload-drop',
  'pve-reload-fail',
  'kube-apiserver-kill',
  'destroy-sigkill',
  'ctrl-c',
  'destroy-whole',
] as const;
export type FaultType = (typeof FAULT_TYPES)[number];

/** The handler domains, by the bundle name in a handler's command line. */
export type Domain = 'linux' | 'pve' | 'kube';
/**
 * `destroy`: the first destroy process of the apply (an sh hook or a Node destroy) seen running; `teardown`: the host's
 * teardown (`linux.js batch teardown`) seen running.
 */
export type Anchor = 'start' | Domain | 'destroy' | 'teardown';

export interface FaultPlan {
  readonly type: FaultType;
  /** The event the delay counts from; none for the PVE faults, which are armed before the apply. */
  readonly anchor?: Anchor;
  readonly delayMs: number;
  /** The node whose reload misbehaves (PVE faults). */
  readonly node?: string;
  /** How a reload drops: its status polls are cut, or the reload request's own connection. */
  readonly drop?: 'polls' | 'request';
  /**
   * Which destroy process dies, `delayMs` after it is first seen: an sh destroy hook (handlers/destroy-hook.sh)
   * or the Node leader its domain's hooks hand their objects to.
   */
  readonly victim?: 'hook' | 'leader';
  /**
   * Ctrl-C: SIGINT to terraform's whole process group (terraform, its plugins, the hooks' shells and handlers at
   * once, as a terminal sends it); when set, a second Ctrl-C this many ms after the first (terraform then abandons
   * its run).
   */
  readonly secondPressMs?: number;
  /** What stops a destroy of the whole state: terraform SIGKILLed, the host's teardown SIGKILLed, or a Ctrl-C. */
  readonly stop?: 'terraform' | 'teardown' | 'ctrl-c';
}

/** How long after a destroy process starts its kill may land (a leader of a round's few destroys: ~0.5 s). */
const DESTROY_WINDOW_MS = 300;
/**
 * How long after its anchor a fault may land, drawn uniformly: about as long as that step runs in a flip of the
 * campaign's stack (measured: the apply ~5 s from terraform's start, the linux batch ~3 s, the PVE batch ~1 s
 * with its reloads, the kube batch ~0.5 s), so most faults land inside the step they aim at.
 */
const WINDOW_MS: Readonly<Record<Anchor, number>> = {
  start: 5_000,
  linux: 3_000,
  pve: 1_000,
  kube: 500,
  destroy: DESTROY_WINDOW_MS,
  // The campaign host's teardown, a few units in one run: 0.5-1.5 s with its Node start.
  teardown: 1_500,
};
/** How long after a first Ctrl-C a second may come: a user pressing again at once, or after a second's wait. */
const SECOND_PRESS_MS = 1_500;

/**
 * Round `round` (1-based)'s fault. Types come in seeded cycles of every type, so any FAULT_TYPES.length
 * consecutive rounds from the first cover each type once.
 */
export const planFault = (seed: number, round: number): FaultPlan => {
  const cycle = Math.floor((round - 1) / FAULT_TYPES.length);
  const type = shuffled(FAULT_TYPES, generator(childSeed(seed, `cycle ${cycle}`)))[
    (round - 1) % FAULT_TYPES.length
  ] as FaultType;
  const draw = drawFrom(generator(childSeed(seed, `round ${round}`)));
  const after = (anchor: Anchor) => ({
    anchor,
    delayMs: draw.int(WINDOW_MS[anchor]),
  });
  switch (type) {
    case 'terraform-sigkill':
    case 'terraform-sigterm':
      return { type, ...after(draw.pick<Anchor>(['start', 'linux', 'linux', 'pve', 'kube'])) };
    case 'handler-sigkill':
      return { type, ...after(draw.pick<Domain>(['linux', 'linux', 'pve', 'kube'])) };
    case 'ssh-cut':
    case 'sshd-kill':
      return { type, ...after('linux') };
    case 'kube-apiserver-kill':
      return { type, ...after(draw.pick<Anchor>(['start', 'kube', 'kube'])) };
    case 'destroy-sigkill':
      // A hook lives a few ms, a leader as long as hooks keep coming: the instant counts from its start.
      return { type, anchor: 'start', delayMs: draw.int(DESTROY_WINDOW_MS), victim: draw.pick(['hook', 'leader']) };
    case 'ctrl-c': {
      const at = after(draw.pick<Anchor>(['start', 'linux', 'linux', 'pve', 'kube', 'destroy', 'destroy']));
      return draw.int(2) === 0 ? { type, ...at } : { type, ...at, secondPressMs: draw.int(SECOND_PRESS_MS) };
    }
    case 'destroy-whole': {
      const stop = draw.pick(['terraform', 'teardown', 'ctrl-c'] as const);
      return { type, stop, ...after(stop === 'teardown' ? 'teardown' : draw.pick<Anchor>(['start', 'teardown'])) };
    }
    case 'pve-reload-drop':
      return { type, delayMs: 0, node: draw.pick(PVE_NODES), drop: draw.pick(['polls', 'request'] as const) };
    default:
      return { type, delayMs: 0, node: draw.pick(PVE_NODES) };
  }
};

/** The plan in words, for the round's line and its replay. */
export const describePlan = (plan: FaultPlan): string => {
  if (plan.node !== undefined) return `${plan.type} on ${plan.node}${plan.drop ? ` (${plan.drop})` : ''}`;
  if (plan.victim !== undefined) return `${plan.type} of a destroy ${plan.victim} ${plan.delayMs} ms after it started`;
  const anchor =
    plan.anchor === 'start'
      ? 'terraform start'
      : plan.anchor === 'destroy'
        ? 'a destroy process start'
        : plan.anchor === 'teardown'
          ? 'the teardown start'
          : `${plan.anchor} apply handler start`;
  if (plan.stop !== undefined) return `${plan.type}: ${plan.stop} stopped ${plan.delayMs} ms after ${anchor}`;
  const again = plan.secondPressMs === undefined ? '' : `, again ${plan.secondPressMs} ms later`;
  return `${plan.type} ${plan.delayMs} ms after ${anchor}${again}`;
};
