// Unit test of the list-then-watch loop over a scripted client and a stepped clock: 410 as an HTTP status re-lists,
// a watch the server closes resumes from the last resourceVersion, and the budget ends the wait with no verdict.
import type { Clock } from '../../../../src/core/clock';
import type { KubeAnswer, KubeList, KubeObject } from '../../../../src/kube/client';
import { parseEvents, watchObject, type WatchClient } from '../../../../src/kube/watch';

const answer = (status: number, lines: object[] = []): KubeAnswer => {
  const body = Buffer.from(lines.map((l) => JSON.stringify(l)).join('\n'));
  return { status, body: undefined, raw: { status, reason: '', headers: {}, body } };
};
const sandbox = (rv: string, done = false) => ({ metadata: { name: 'agent-1', resourceVersion: rv }, done });

/** A clock that advances by each watch window it is asked to wait, without sleeping. */
const steppedClock = (): Clock & { advance(ms: number): void } => {
  let now = 0;
  return { now: () => now, sleep: async (ms) => void (now += ms), advance: (ms) => void (now += ms) };
};

const scripted = (lists: KubeList[], watches: KubeAnswer[], clock: ReturnType<typeof steppedClock>) => {
  const paths: string[] = [];
  const client: WatchClient = {
    connection: { server: 'https://k:6443' },
    list: async (path) => (paths.push(`LIST ${path}`), lists.shift() ?? { items: [], resourceVersion: '0' }),
    call: async (_method, path) => {
      paths.push(`WATCH ${/resourceVersion=(\w+)/.exec(path)?.[1]}`);
      clock.advance(Number(/timeoutSeconds=(\d+)/.exec(path)?.[1]) * 1000);
      return watches.shift() ?? answer(200);
    },
  };
  return { client, paths };
};
const decide = (o: KubeObject | undefined) => (o?.done === true ? 'done' : undefined);

test('an HTTP 410 re-lists; a closed watch resumes from the last resourceVersion seen', async () => {
  const clock = steppedClock();
  const { client, paths } = scripted(
    [
      { items: [sandbox('5')], resourceVersion: '5' },
      { items: [sandbox('9')], resourceVersion: '9' },
    ],
    [
      answer(410),
      answer(200, [{ type: 'MODIFIED', object: sandbox('12') }]),
      answer(200, [{ type: 'MODIFIED', object: sandbox('14', true) }]),
    ],
    clock,
  );
  expect(await watchObject(client, clock, '/c', 'agent-1', decide, 60_000)).toEqual({ decided: true, value: 'done' });
  expect(paths).toEqual([
    'LIST /c?fieldSelector=metadata.name%3Dagent-1',
    'WATCH 5',
    'LIST /c?fieldSelector=metadata.name%3Dagent-1',
    'WATCH 9',
    'WATCH 12',
  ]);
});

test('a DELETED event is decided as the object gone', async () => {
  const clock = steppedClock();
  const { client } = scripted(
    [{ items: [sandbox('5')], resourceVersion: '5' }],
    [answer(200, [{ type: 'DELETED', object: sandbox('6') }])],
    clock,
  );
  const gone = (o: unknown) => (o === undefined ? 'gone' : undefined);
  expect(await watchObject(client, clock, '/c', 'agent-1', gone, 60_000)).toEqual({ decided: true, value: 'gone' });
});

test('the budget ends a wait on an object that never changes, on the clock port', async () => {
  const clock = steppedClock();
  const { client, paths } = scripted([{ items: [sandbox('5')], resourceVersion: '5' }], [], clock);
  expect(await watchObject(client, clock, '/c', 'agent-1', decide, 10_000)).toEqual({ decided: false });
  expect(clock.now()).toBe(10_000);
  expect(paths.filter((p) => p === 'WATCH 5')).toHaveLength(4); // 3 + 3 + 3 + 1 s windows
});

test('an ERROR event other than 410 fails with its Status', async () => {
  const clock = steppedClock();
  const error = { kind: 'Status', code: 500, reason: 'InternalError', message: 'etcd down' };
  const { client } = scripted(
    [{ items: [], resourceVersion: '5' }],
    [answer(200, [{ type: 'ERROR', object: error }])],
    clock,
  );
  await expect(watchObject(client, clock, '/c', 'agent-1', decide, 10_000)).rejects.toThrow(
    'Kubernetes API answered 500 InternalError: etcd down',
  );
});

test('a watch line is an event only with a known type and an object of the Kubernetes shape', () => {
  const lines = [
    { type: 'MODIFIED', object: sandbox('3') },
    { type: 'ERROR', object: { code: 410 } },
    { type: 'MODIFIED', object: { metadata: { name: 5 } } },
    { type: 'RENAMED', object: sandbox('4') },
  ];
  const body = Buffer.from([...lines.map((line) => JSON.stringify(line)), 'not json', ''].join('\n'));
  expect(parseEvents(body)).toEqual([
    { type: 'MODIFIED', object: sandbox('3') },
    { type: 'ERROR', object: { code: 410 } },
  ]);
});
