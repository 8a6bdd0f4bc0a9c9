/**
 * A stand-in for the jr2 cache agent and operator: it watches Sandboxes (list, then watch; re-list on 410) and answers
 * fetch asks (the `askedAnnotation(key)` stamps) in status.repos[] as the seed's SandboxObject carries them, so fetch
 * asks are tested end to end against the API server's real watch machinery. Each test says how it answers.
 */
import { askedAnnotation, SANDBOXES } from '../../src/kube/names';
import { crPath } from './kube-crds';
import { kubeExpect, kubeRequest, kubeWatch, type KubeCaller, type WatchStream } from './kube-http';

/** How the agent answers an ask: a landing after `delayMs`, git's words after `delayMs`, or silence. */
export type FetchAnswer =
  | { readonly fetched: true; readonly delayMs?: number }
  | { readonly error: string; readonly delayMs?: number }
  | { readonly never: true };

export interface SandboxRepoStatus {
  key: string;
  asked?: string;
  fetched?: string;
  attempted?: string;
  error?: string;
}

/** The fields of a Sandbox the agent reads, as the seed's SandboxObject has them. */
export interface SandboxObject {
  metadata: { name: string; uid: string; resourceVersion: string; annotations?: Record<string, string> };
  spec?: { repos?: Array<{ key: string }> };
  status?: { repos?: SandboxRepoStatus[] };
}

export interface SandboxController {
  /** From now on, answer asks for `key` (every key when absent) this way. Default: fetched at once. */
  answer(how: FetchAnswer, key?: string): void;
  /** Every ask seen, in order: Sandbox, key and the stamp. */
  readonly asks: ReadonlyArray<{ sandbox: string; key: string; asked: string }>;
  /** How many times the controller listed (1 + one per re-list after a 410). */
  readonly lists: number;
  stop(): Promise<void>;
}

export interface SandboxControllerOptions {
  /** Watch first from this resourceVersion instead of the list's, to exercise the re-list on 410. */
  readonly firstResourceVersion?: string;
}

const PREFIX = askedAnnotation('x').slice(0, -1);
/** RFC 3339 to the second, as asks are stamped. */
export const stampNow = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const startSandboxController = async (
  agent: KubeCaller,
  namespace: string,
  opts: SandboxControllerOptions = {},
): Promise<SandboxController> => {
  const answers = new Map<string | undefined, FetchAnswer>();
  const asks: Array<{ sandbox: string; key: string; asked: string }> = [];
  const seen = new Set<string>();
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;
  let lists = 0;
  let watch: WatchStream | undefined;

  /** Writes one key's entry through /status, replacing the array whole (merge patches replace arrays). */
  const writeEntry = async (sandbox: string, key: string, entry: (old?: SandboxRepoStatus) => SandboxRepoStatus) => {
    for (let attempt = 0; attempt < 5 && !stopped; attempt++) {
      const got = await kubeRequest<SandboxObject>(agent, 'GET', crPath(namespace, SANDBOXES, sandbox));
      if (got.status === 404) return;
      const repos: SandboxRepoStatus[] = got.body.status?.repos ?? [];
      const next = entry(repos.find((r) => r.key === key));
      const patch = {
        metadata: { resourceVersion: got.body.metadata.resourceVersion }, // conflict instead of a lost update
        status: { repos: [...repos.filter((r) => r.key !== key), next] },
      };
      const path = `${crPath(namespace, SANDBOXES, sandbox)}/status`;
      const put = await kubeRequest(agent, 'PATCH', path, patch, 'application/merge-patch+json');
      if (put.status !== 409) return void (put.status === 200 || console.error(`agent: ${put.status} ${put.body}`));
    }
  };

  const onAsk = (sandbox: string, key: string, asked: string) => {
    asks.push({ sandbox, key, asked });
    const how = answers.get(key) ?? answers.get(undefined) ?? { fetched: true };
    if ('never' in how) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      const now = stampNow();
      void writeEntry(sandbox, key, (old) =>
        'error' in how
          ? { key, asked, attempted: now, error: how.error, ...(old?.fetched ? { fetched: old.fetched } : {}) }
          : { key, asked, attempted: now, fetched: now },
      );
    }, how.delayMs ?? 0);
    timers.add(timer);
  };

  const onSandbox = (item: SandboxObject) => {
    const mounted = new Set((item.spec?.repos ?? []).map((r: { key: string }) => r.key));
    for (const [name, asked] of Object.entries<string>(item.metadata?.annotations ?? {})) {
      if (!name.startsWith(PREFIX)) continue;
      const key = name.slice(PREFIX.length);
      const id = `${item.metadata.uid}/${key}/${asked}`;
      if (!mounted.has(key) || seen.has(id)) continue; // the operator fetches only what the Sandbox mounts
      seen.add(id);
      onAsk(item.metadata.name, key, asked);
    }
  };

  /** List, then watch from the list's resourceVersion until the stream ends; returns why it ended. */
  const listAndWatch = async (): Promise<'expired' | 'ended'> => {
    const list = await kubeExpect<{ items: SandboxObject[]; metadata: { resourceVersion: string } }>(
      agent,
      'GET',
      crPath(namespace, SANDBOXES),
    );
    lists++;
    list.items.forEach(onSandbox);
    let rv: string =
      lists === 1 && opts.firstResourceVersion ? opts.firstResourceVersion : list.metadata.resourceVersion;
    while (!stopped) {
      let expired = false;
      const query = `?watch=1&allowWatchBookmarks=true&timeoutSeconds=60&resourceVersion=${rv}`;
      // An event carries a Sandbox, or (ERROR) a Status with its code.
      watch = kubeWatch<SandboxObject & { code?: number }>(agent, crPath(namespace, SANDBOXES) + query, (e) => {
        if (e.type === 'ERROR') expired = e.object?.code === 410;
        else rv = e.object?.metadata?.resourceVersion ?? rv;
        if (e.type === 'ADDED' || e.type === 'MODIFIED') onSandbox(e.object);
      });
      const status = await watch.status;
      await watch.ended;
      if (stopped || status === 410 || expired) return 'expired';
      if (status !== 200) return 'ended';
      // The server closed a healthy watch (timeoutSeconds): resume from the last resourceVersion seen.
    }
    return 'ended';
  };

  const loop = (async () => {
    while (!stopped) {
      const why = await listAndWatch().catch(() => 'ended' as const);
      if (why === 'ended' && !stopped) await sleep(200);
    }
  })();

  return {
    answer: (how, key) => void answers.set(key, how),
    asks,
    get lists() {
      return lists;
    },
    stop: async () => {
      stopped = true;
      timers.forEach(clearTimeout);
      watch?.close();
      await loop;
    },
  };
};
