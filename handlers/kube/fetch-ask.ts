/**
 * The apply of a fetch ask: check the Sandbox mounts the key, raise the ask with one merge patch (whose answer may
 * already carry the verdict; a pending ask for the same trigger, whichever stack raised it, is shared instead), else
 * watch that Sandbox until the budget on the clock port, through an API server restart. A stale cache is a warning
 * and the apply succeeds; only a Sandbox that is gone or does not mount the key fails it.
 */
import { HandlerError } from '../../src/core/errors';
import type { KindContext } from '../../src/core/kind';
import { isOtherStack, otherStackText } from '../../src/core/stack-id';
import type { HttpAnswer } from '../../src/core/http/request';
import { MERGE_PATCH } from '../../src/kube/client';
import { askedAnnotation } from '../../src/kube/names';
import {
  askStamp,
  describeVerdict,
  fetchedOf,
  type FetchVerdict,
  mountedKeys,
  parseSandbox,
  type Sandbox,
  verdict,
} from '../../src/kube/fetch-verdict';
import {
  askedByFor,
  askPatch,
  type LiveSandbox,
  sharedAsk,
  type RepoFetchSpec,
  sandboxesPath,
  sandboxName,
  ASK_FIXES,
  sandboxTypeMissing,
  triggerAnnotation,
  unmounted,
} from '../../src/kube/kube-repo-fetch';
import { isObjectNotFound, type KubeApiError, statusOf } from '../../src/kube/status';
import { watchObject, type WatchClient } from '../../src/kube/watch';

/** The client calls an ask makes; the handler passes its KubeClient, tests a scripted one. */
export interface FetchClient extends WatchClient {
  error(answer: HttpAnswer, request: string): KubeApiError;
}

/**
 * Raises the ask and waits for its verdict; logs it and returns it. Throws only for a refusal. The budget bounds
 * the whole ask: every request is capped at what is left of it, so a stopped API server cannot hold it longer.
 */
export const askForFetch = async (
  client: FetchClient,
  cluster: string,
  spec: RepoFetchSpec,
  context: KindContext,
): Promise<FetchVerdict> => {
  const { clock, log } = context;
  const name = sandboxName(spec);
  const started = clock.now();
  const deadline = started + spec.budgetSeconds * 1000;
  const left = () => Math.max(1, deadline - clock.now());
  const { asked, marked } = await raiseOrShare(client, cluster, spec, context, left);
  let answer = verdict(marked, spec.key, asked);
  if (answer === undefined) {
    log(`${name}: asked for repo "${spec.key}" at ${asked}; waiting up to ${spec.budgetSeconds} s for the node cache`);
    answer = await waitForVerdict(client, spec, { asked, marked, deadline }, context);
  }
  const after = `after ${Math.round((clock.now() - started) / 1000)} s`;
  if ('fetched' in answer) log(`${name}: ${describeVerdict(spec.key, answer)} (${after})`);
  else {
    log(
      `Warning: ${name}: ${describeVerdict(spec.key, answer)} (${after}); ` +
        'the apply succeeds with what the cache holds, and the next plan asks again',
    );
  }
  return answer;
};

/** The Sandbox now, or why there is none: absent, or its type not served (a 404 that does not name it). */
export const readSandbox = async (
  client: FetchClient,
  spec: RepoFetchSpec,
  timeoutMs?: number,
): Promise<LiveSandbox> => {
  const path = sandboxesPath(spec.namespace, spec.version, spec.sandbox);
  const answer = await client.call('GET', path, { timeoutMs });
  if (answer.status === 404) return isObjectNotFound(statusOf(answer.raw), spec.sandbox) ? 'absent' : 'type-missing';
  if (answer.status !== 200) throw client.error(answer.raw, `GET ${path}`);
  return parseSandbox(answer.body, sandboxName(spec));
};

/** The Sandbox, when the ask may be raised on it; else the refusal. */
const refuseUnless = (spec: RepoFetchSpec, live: LiveSandbox, cluster: string): Sandbox => {
  const name = sandboxName(spec);
  if (live === 'type-missing') {
    throw new HandlerError(`${name} cannot be asked`, `${sandboxTypeMissing(cluster)}; ${ASK_FIXES.typeMissing}`);
  }
  if (live === 'absent') {
    throw new HandlerError(`${name} does not exist`, ASK_FIXES.absent(cluster));
  }
  if (!mountedKeys(live).includes(spec.key)) throw refusal(spec, live);
  return live;
};

/** A key the Sandbox does not mount is refused: its token's scope is the caches its own pod mounts (seed 004). */
const refusal = (spec: RepoFetchSpec, sandbox: Sandbox) =>
  new HandlerError('Fetch refused', `${unmounted(spec, sandbox)}; ${ASK_FIXES.unmounted}`);

const gone = (spec: RepoFetchSpec, asked: string) =>
  new HandlerError(
    `${sandboxName(spec)} is gone`,
    `it was deleted while the fetch of repo "${spec.key}" asked at ${asked} was awaited; nothing is left to fetch into`,
  );

/** How many times an ask re-reads the Sandbox after a write lost to another (409) before writing unconditioned. */
const CONDITIONED_TRIES = 4;

/**
 * Raises the ask, or shares one: a pending ask for the same trigger (another stack's, or a concurrent run's) is
 * waited on, not raised again. The patch is conditioned on the version read, so of two asks raised at once one
 * writes and the other re-reads, finds it, and waits on it: one merge patch, not two (issue 27). One that finds
 * instead another stack's ask for another trigger raised meanwhile is refused, naming both, unless its construct
 * says takeOver: the plan's and the apply's checks of whose the ask is (markedBy) were made before it.
 */
const raiseOrShare = async (
  client: FetchClient,
  cluster: string,
  spec: RepoFetchSpec,
  { clock, log, stack, takeOver }: KindContext,
  left: () => number,
): Promise<{ asked: string; marked: Sandbox }> => {
  let before: string | undefined;
  for (let tries = 0; ; tries++) {
    const live = refuseUnless(spec, await readSandbox(client, spec, left()), cluster);
    const record = live.metadata?.annotations?.[triggerAnnotation(spec.key)];
    const racer = askedByFor(spec, live);
    if (tries > 0 && record !== before && takeOver !== true && stack !== undefined && isOtherStack(racer, stack)) {
      throw new HandlerError(
        `${sandboxName(spec)}: ${otherStackText(cluster, racer, stack)}`,
        `stack "${racer}" asked for repo "${spec.key}" for another trigger while this apply was asking; nothing ` +
          'was written: run the apply again (it refuses unless takeOver: true), or keep one stack asking',
      );
    }
    before = record;
    const shared = sharedAsk(spec, live, clock.now());
    if (shared !== undefined) {
      const by = shared.stack === undefined ? '' : ` by stack "${shared.stack}"`;
      log(
        `${sandboxName(spec)}: repo "${spec.key}" was asked at ${shared.asked}${by} for this trigger: sharing that ask`,
      );
      return { asked: shared.asked, marked: live };
    }
    const asked = askStamp(clock.now());
    const version = tries < CONDITIONED_TRIES ? live.metadata?.resourceVersion : undefined;
    const marked = await raiseAsk(client, spec, askPatch(spec, asked, stack, version), left());
    if (marked !== 'conflict') return { asked, marked };
  }
};

/** The merge patch answers the object as it stands afterwards, so a landing already there answers at once. */
const raiseAsk = async (
  client: FetchClient,
  spec: RepoFetchSpec,
  body: ReturnType<typeof askPatch>,
  timeoutMs: number,
): Promise<Sandbox | 'conflict'> => {
  const path = sandboxesPath(spec.namespace, spec.version, spec.sandbox);
  const asked = body.metadata.annotations[askedAnnotation(spec.key)] ?? '';
  const answer = await client.call('PATCH', path, { body, contentType: MERGE_PATCH, timeoutMs });
  if (answer.status === 404 && isObjectNotFound(statusOf(answer.raw), spec.sandbox)) throw gone(spec, asked);
  if (answer.status === 409 && body.metadata.resourceVersion !== undefined) return 'conflict';
  if (answer.status !== 200) throw client.error(answer.raw, `PATCH ${path}`);
  return parseSandbox(answer.body, sandboxName(spec));
};

type Outcome = FetchVerdict | { readonly gone: true } | { readonly unmounted: Sandbox };

/** Watches the Sandbox until it answers the ask; past the budget the answer is the cache, said out loud. An API
 * server that stops answering is asked again until then (a restart is seconds; a verdict may land meanwhile). */
const waitForVerdict = async (
  client: FetchClient,
  spec: RepoFetchSpec,
  ask: { readonly asked: string; readonly marked: Sandbox; readonly deadline: number },
  { clock, log }: KindContext,
): Promise<FetchVerdict> => {
  const { asked, marked, deadline } = ask;
  const name = sandboxName(spec);
  let last = marked;
  const decide = (object: unknown): Outcome | undefined => {
    if (object === undefined) return { gone: true };
    last = parseSandbox(object, sandboxName(spec));
    if (!mountedKeys(last).includes(spec.key)) return { unmounted: last };
    return verdict(last, spec.key, asked);
  };
  const collection = sandboxesPath(spec.namespace, spec.version);
  const progress = {
    lost: (reason: string, leftMs: number) =>
      log(
        `${name}: the Kubernetes API did not answer (${reason}); ` +
          `asking again until the budget ends (${Math.ceil(leftMs / 1000)} s left)`,
      ),
    regained: () => log(`${name}: the Kubernetes API answers again; still waiting for the node cache`),
  };
  const budgetMs = Math.max(0, deadline - clock.now());
  const outcome = await watchObject(client, clock, collection, spec.sandbox, decide, budgetMs, progress);
  if (!outcome.decided) {
    const down =
      outcome.unreachable === undefined ? '' : ` (the Kubernetes API did not answer: ${outcome.unreachable})`;
    return {
      stale: `no answer from the node cache within ${spec.budgetSeconds} s${down}`,
      asOf: fetchedOf(last, spec.key),
    };
  }
  if ('gone' in outcome.value) throw gone(spec, asked);
  if ('unmounted' in outcome.value) throw refusal(spec, outcome.value.unmounted);
  return outcome.value;
};
