// The fake's node task list against [PM] PVE/API2/Tasks.pm node_tasks: archived tasks by default,
// running ones (status RUNNING) only with source active or all, the owner-or-Sys.Audit rule,
// typefilter, the status classes of errors and statusfilter, since/until, start/limit and total.
import { TaskStore } from '../../../../src/simulator/pve/tasks';

let clock = 1_800_000_000_000;
const OWNER = { tokenId: 'ops@pve!apply', auditsNode: false };
const AUDITOR = { tokenId: 'ro@pve!read', auditsNode: true };

/** A store with, on n2: an OK reload, a failed one, a vzdump with warnings, and a reload still running. */
const store = () => {
  clock = 1_800_000_000_000;
  const tasks = new TaskStore(() => clock);
  const ok = tasks.start('n2', 'srvreload', 'networking', 'ops@pve!apply');
  clock += 10_000;
  const failed = tasks.start('n2', 'srvreload', 'networking', 'ops@pve!apply', { exitstatus: 'boom' });
  clock += 10_000;
  const dump = tasks.start('n2', 'vzdump', '100', 'root@pam', { exitstatus: 'WARNINGS: 1' });
  clock += 10_000;
  const running = tasks.start('n2', 'srvreload', 'networking', 'ops@pve!apply', { durationMs: Infinity });
  tasks.start('n3', 'srvreload', 'networking', 'ops@pve!apply');
  return { tasks, ok, failed, dump, running };
};
const upids = (rows: Array<Record<string, unknown>>) => rows.map((row) => row.upid);

test('the default lists archived tasks only, the one archived last first, with endtime and status', () => {
  const { tasks, ok, failed, dump } = store();
  const { rows, total } = tasks.index('n2', AUDITOR);
  expect(upids(rows)).toEqual([dump, failed, ok]);
  expect(total).toBe(3);
  expect(rows[1]).toEqual({
    upid: failed,
    node: 'n2',
    pid: expect.any(Number),
    pstart: expect.any(Number),
    starttime: 1_800_000_010,
    type: 'srvreload',
    id: 'networking',
    user: 'ops@pve',
    tokenid: 'apply',
    endtime: 1_800_000_010,
    status: 'boom',
  });
});

test('source active lists running tasks as RUNNING without endtime; all lists them first', () => {
  const { tasks, running, dump } = store();
  expect(tasks.index('n2', AUDITOR, { source: 'active' }).rows).toEqual([
    expect.objectContaining({ upid: running, status: 'RUNNING' }),
  ]);
  expect(tasks.index('n2', AUDITOR, { source: 'active' }).rows[0]).not.toHaveProperty('endtime');
  expect(upids(tasks.index('n2', AUDITOR, { source: 'all' }).rows).slice(0, 2)).toEqual([running, dump]);
});

test('a caller without Sys.Audit on the node sees only its own tasks', () => {
  const { tasks, dump } = store();
  expect(upids(tasks.index('n2', OWNER).rows).includes(dump)).toBe(false);
  expect(tasks.index('n2', { tokenId: 'ops@pve!other', auditsNode: false }).rows).toEqual([]);
});

test.each([
  [{ typefilter: 'vzdump' }, ['dump']],
  [{ errors: true }, ['dump', 'failed']],
  [{ statusfilter: 'error' }, ['failed']],
  [{ statusfilter: 'ok,warning' }, ['dump', 'ok']],
  [{ since: 1_800_000_010 }, ['dump', 'failed']],
  [{ until: 1_800_000_010 }, ['failed', 'ok']],
  [{ start: 1, limit: 1 }, ['failed']],
])('the filters %j keep %j', (query, names) => {
  const made = store();
  const byUpid = new Map(Object.entries(made).map(([name, value]) => [value, name]));
  expect(made.tasks.index('n2', AUDITOR, query).rows.map((row) => byUpid.get(row.upid as string))).toEqual(names);
});

test('total counts every task the filters kept, past the limit too', () => {
  expect(store().tasks.index('n2', AUDITOR, { limit: 1 }).total).toBe(3);
});
