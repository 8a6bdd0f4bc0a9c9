// Unit test of two asks on one Sandbox and key raised at once (issue 27 item 4), over a scripted API whose Sandbox
// changes between this ask's read and its write: the merge patch carries the version read, the API answers 409, and
// the ask reads again. Another stack's ask for the same trigger found then is shared (no second write); one for
// another trigger is refused naming both stacks, with nothing written.
import { askForFetch, type FetchClient } from '../../../../handlers/kube/fetch-ask';
import type { HttpAnswer } from '../../../../src/core/http/request';
import { askStamp } from '../../../../src/kube/fetch-verdict';
import { triggerAnnotation, triggerDigest } from '../../../../src/kube/kube-repo-fetch';
import { askedAnnotation } from '../../../../src/kube/names';
import { KubeApiError, statusOf } from '../../../../src/kube/status';
import { VirtualClock } from '../../../support/virtual-clock';
import { FETCH_SPEC as spec } from '../../src/kube/kube-repo-fetch-fixtures';

const raw = (status: number, body: unknown = {}): HttpAnswer => ({
  status,
  reason: '',
  headers: {},
  body: Buffer.from(JSON.stringify(body)),
});

/** A Sandbox that another stack's ask (`racer`'s record) reaches between this ask's first read and its patch. */
const racingApi = (clock: VirtualClock, racerTrigger: string) => {
  const asked = askStamp(clock.now());
  const sandbox = (version: string, annotations: Record<string, string>) => ({
    metadata: { name: 'agent-1', resourceVersion: version, annotations },
    spec: { repos: [{ key: 'site' }] },
    status: { repos: [{ key: 'site', asked, fetched: asked }] },
  });
  let live = sandbox('5', {});
  const raced = sandbox('6', {
    [askedAnnotation('site')]: asked,
    [triggerAnnotation('site')]: `${asked} ${triggerDigest(racerTrigger)} blue`,
  });
  const patches: Array<{ metadata: { resourceVersion?: string } }> = [];
  const client: FetchClient = {
    connection: { server: 'https://k:6443' },
    list: async () => ({ items: [live], resourceVersion: live.metadata.resourceVersion }),
    call: async (method, _path, options) => {
      if (method === 'PATCH') {
        patches.push(options?.body as { metadata: { resourceVersion?: string } });
        if (patches.length > 1) return { status: 200, body: live, raw: raw(200, live) }; // a retry lands
        live = raced; // the other stack's patch landed first
        const conflict = { kind: 'Status', reason: 'Conflict', code: 409, message: 'the object has been modified' };
        return { status: 409, body: conflict, raw: raw(409, conflict) };
      }
      return { status: 200, body: live, raw: raw(200, live) };
    },
    error: (answer, request) => new KubeApiError(statusOf(answer), request, 'https://k:6443'),
  };
  return { client, patches, asked };
};

const context = (clock: VirtualClock, log: string[], takeOver = false) => ({
  env: {},
  log: (line: string) => log.push(line),
  clock,
  stack: 'green',
  ...(takeOver && { takeOver }),
});

test("another stack's ask for the same trigger, landed between read and write, is shared: one patch", async () => {
  const clock = new VirtualClock();
  const api = racingApi(clock, spec.trigger);
  const log: string[] = [];
  const answer = await askForFetch(api.client, 'Kubernetes cluster home', spec, context(clock, log));
  expect(answer).toEqual({ fetched: api.asked });
  expect(api.patches.map((p) => p.metadata.resourceVersion)).toEqual(['5']);
  expect(log[0]).toBe(
    `Sandbox jr2/agent-1: repo "site" was asked at ${api.asked} by stack "blue" for this trigger: sharing that ask`,
  );
});

test("another stack's ask for another trigger, landed between read and write, is refused naming both", async () => {
  const clock = new VirtualClock();
  const api = racingApi(clock, 'v9');
  await expect(askForFetch(api.client, 'Kubernetes cluster home', spec, context(clock, []))).rejects.toThrow(
    'Sandbox jr2/agent-1: exists on Kubernetes cluster home, marked by stack "blue", not this stack "green"',
  );
  expect(api.patches).toHaveLength(1);
});

test("with takeOver, another stack's ask for another trigger raised meanwhile is asked over, not refused", async () => {
  const clock = new VirtualClock();
  const api = racingApi(clock, 'v9');
  await askForFetch(api.client, 'Kubernetes cluster home', spec, context(clock, [], true));
  expect(api.patches.map((p) => p.metadata.resourceVersion)).toEqual(['5', '6']);
});
