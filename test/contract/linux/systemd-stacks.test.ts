/**
 * Two stacks on one real systemd 252 host (issue 27 item 3). The probe: a second stack declaring a unit the
 * first stack created read it as in sync, and its destroy deleted the first stack's running unit, because
 * the ownership mark was per host. Now the record, the drop-in's mark and the intent name the stack: the
 * second stack's read names both stacks, its apply refuses even with adopt, its destroy leaves the unit
 * running; `takeOver: true` takes it (the mark rewritten, nothing restarted); an earlier version's record,
 * naming no stack, counts as the reading stack's and gets its stack at that object's next apply.
 */
import { linuxDomain } from '../../../handlers/linux/domain';
import { canonicalJson } from '../../../src/core/canonical';
import { runHandler } from '../../../src/core/handler-cli';
import { APPLY, BATCH, ENV } from '../../../src/core/protocol';
import type { DropInSpec } from '../../../src/linux/systemd-drop-in';
import type { InstanceSpec } from '../../../src/linux/systemd-instance';
import { restartOnPath } from '../../../src/linux/unit-file';
import { dropInMarkPath } from '../../../src/linux/unit-ownership';
import { destroyEnv } from '../../support/run-handler';
import { hostTarget, KEY_ENV, unitSpec, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(180_000);

const { host, unit } = useSystemdHost();

const DIR = '/etc/systemd/system';
const SLEEPER = '[Service]\nExecStart=/bin/sleep infinity\n\n[Install]\nWantedBy=multi-user.target\n';
const shared = unitSpec('shared.service', SLEEPER);
const template = unitSpec('twin@.service', SLEEPER, { enabled: false, started: false });
const { content: _, ...control } = unitSpec('twin@y.service', SLEEPER);
const instance: InstanceSpec = { ...control, template: 'twin@.service' };
const BOTH = '[Service]\nEnvironment=BOTH=1\n';
const dropIn: DropInSpec = {
  unit: 'shared.service',
  name: '10-both',
  directory: DIR,
  content: BOTH,
  startTimeoutSeconds: 90,
};

interface Entry {
  readonly kind: string;
  readonly spec: object;
  readonly after?: readonly string[];
  readonly adopt?: boolean;
  readonly takeOver?: boolean;
}

const owner = ({ adopt, takeOver }: Entry) => ({ ...(adopt ? { adopt } : {}), ...(takeOver ? { takeOver } : {}) });
const objects = (over: Omit<Entry, 'kind' | 'spec'> = {}): Record<string, Entry> => ({
  shared: { kind: 'systemd-unit', spec: shared, ...over },
  twin_y: { kind: 'systemd-instance', spec: instance, after: ['twin'], ...over },
  both: { kind: 'systemd-drop-in', spec: dropIn, after: ['shared'], ...over },
});

/** Runs the handler as a hook of stack `stack` does; `stdin` for a batch read. */
const run = async (stack: string, argv: string[], env: NodeJS.ProcessEnv, stdin = '') => {
  const log: string[] = [];
  const out: string[] = [];
  const io = {
    stdin: async () => stdin,
    env: { [KEY_ENV]: host().privateKey, [ENV.stack]: stack, ...env },
    out: (line: string) => out.push(line),
    log: (line: string) => log.push(line),
  };
  const code = await runHandler(linuxDomain(), argv, io);
  const result = out.length > 0 ? (JSON.parse(out.join('')) as Record<string, string>) : undefined;
  return { code, stderr: log.join('\n'), result };
};

/** The batch read as the stack's data source runs it: its identity under `.stack`. */
const read = (stack: string, entries: Record<string, Entry>) => {
  const query: Record<string, string> = { [BATCH.target]: canonicalJson(hostTarget(host())), [BATCH.stack]: stack };
  for (const [name, entry] of Object.entries(entries)) {
    query[name] = canonicalJson({ kind: entry.kind, spec: entry.spec, ...owner(entry) });
  }
  return run(stack, [BATCH.verb, 'read'], {}, JSON.stringify(query));
};

/** The batch apply as the stack's apply resource runs it, every entry drifted. */
const apply = (stack: string, entries: Record<string, Entry>) => {
  const env: Record<string, string> = {
    [ENV.target]: canonicalJson(hostTarget(host())),
    [APPLY.drifted]: Object.keys(entries).join(','),
  };
  Object.values(entries).forEach((entry, index) => {
    const { kind, spec, after = [] } = entry;
    env[`${APPLY.objectPrefix}${index}`] = canonicalJson({ kind, spec, after, ...owner(entry) });
  });
  return run(stack, [APPLY.verb, 'apply'], env);
};

/** The destroy hook of stack `stack` (a retired object's and a removed construct's run the same). */
const destroy = (stack: string, kind: string, identity: object, adopt = false) =>
  run(stack, [kind, 'destroy'], {
    ...destroyEnv(hostTarget(host()), identity),
    ...(adopt ? { [ENV.adopt]: 'true' } : {}),
  });

const pids = async () => [(await unit.show('shared.service')).MainPID, (await unit.show('twin@y.service')).MainPID];
const marks = async () =>
  (
    await host().exec(
      `cat ${restartOnPath(shared)} ${restartOnPath(instance)} ${dropInMarkPath(dropIn)} | grep -o 'stack=.*'`,
    )
  ).stdout
    .trim()
    .split('\n');
const WHERE = 'exists on root@127\\.0\\.0\\.1:\\d+';

beforeAll(async () => {
  // Stack "blue" makes the unit, the template's instance and the drop-in.
  const made = await apply('blue', { twin: { kind: 'systemd-unit', spec: template }, ...objects() });
  expect(made).toMatchObject({ code: 0 });
  expect(await marks()).toEqual(['stack=blue', 'stack=blue', 'stack=blue']);
});

test('a second stack reads them as the first`s, naming both, adopt or not; the first reads them in sync', async () => {
  for (const adopt of [false, true]) {
    const reading = await read('green', objects({ adopt }));
    for (const name of ['shared', 'twin_y', 'both']) {
      expect(reading.result?.[`${name}.in_sync`]).toBe('false');
      expect(reading.result?.[`${name}.summary`]).toMatch(
        new RegExp(`^${WHERE}, marked by stack "blue", not this stack "green": the apply will refuse it, adopt`),
      );
    }
  }
  expect((await read('blue', objects())).result?.['.summary']).toBe('all 3 objects are in sync');
});

test('the second stack`s apply refuses them even with adopt, naming both stacks; nothing changes', async () => {
  const before = await pids();
  const applied = await apply('green', objects({ adopt: true }));
  expect(applied.code).toBe(1);
  expect(applied.stderr).toMatch(
    new RegExp(
      `^shared: not applied: ${WHERE}, marked by stack "blue", not this stack "green".*set takeOver: true`,
      'm',
    ),
  );
  expect(applied.stderr).toMatch(/3 of 3 objects on root@127.0.0.1:\d+ were not applied \(shared, twin_y, both\)/);
  expect(await pids()).toEqual(before);
  expect(await marks()).toEqual(['stack=blue', 'stack=blue', 'stack=blue']);
});

test('the second stack`s destroy, adopt or not, leaves the first stack`s running unit, naming both', async () => {
  const before = await pids();
  const identities: Array<[string, object]> = [
    ['systemd-drop-in', { unit: dropIn.unit, name: dropIn.name, directory: DIR }],
    ['systemd-instance', { name: instance.name, directory: DIR }],
    ['systemd-unit', { name: shared.name, directory: DIR }],
  ];
  for (const adopt of [false, true]) {
    for (const [kind, identity] of identities) {
      const destroyed = await destroy('green', kind, identity, adopt);
      expect(destroyed).toMatchObject({ code: 0 });
      expect(destroyed.stderr).toMatch(
        /: marked by stack "blue", not this stack "green": left as it is \(that stack manages it\)$/,
      );
    }
  }
  expect(await pids()).toEqual(before);
  expect(await unit.show('shared.service')).toMatchObject({ ActiveState: 'active', UnitFileState: 'enabled' });
  expect((await host().exec(`ls ${DIR}/shared.service.d/10-both.conf`)).code).toBe(0);
  expect((await read('blue', objects())).result?.['.summary']).toBe('all 3 objects are in sync');
});

test('takeOver: true takes them: the marks name the second stack, nothing restarts, the first sees that', async () => {
  const reading = await read('green', objects({ takeOver: true }));
  expect(reading.result?.['shared.summary']).toMatch(
    new RegExp(`^${WHERE}, marked by stack "blue", not this stack "green": will be taken over \\(takeOver: true\\)$`),
  );
  const before = await pids();
  expect(await apply('green', objects({ takeOver: true }))).toMatchObject({ code: 0 });
  expect(await pids()).toEqual(before);
  expect(await marks()).toEqual(['stack=green', 'stack=green', 'stack=green']);
  expect((await read('green', objects())).result?.['.summary']).toBe('all 3 objects are in sync');
  expect((await read('blue', objects())).result?.['shared.summary']).toMatch(
    /marked by stack "green", not this stack "blue"/,
  );
});

test('an earlier version`s record (no stack) is the reader`s; that object`s next apply writes its stack', async () => {
  const older = unitSpec('older.service', SLEEPER);
  await host().exec(
    `printf '%s' '${SLEEPER}' > ${DIR}/older.service && systemctl daemon-reload && ` +
      `systemctl enable --now older.service && printf '%s\\n' ${older.restartOn} > ${restartOnPath(older)}`,
  );
  const entry = { older: { kind: 'systemd-unit', spec: older } };
  expect((await read('blue', entry)).result?.['older.in_sync']).toBe('true');
  expect((await read('green', entry)).result?.['older.in_sync']).toBe('true');
  const pid = (await unit.show('older.service')).MainPID;
  expect(await apply('blue', entry)).toMatchObject({ code: 0 });
  expect((await unit.show('older.service')).MainPID).toBe(pid);
  expect((await host().exec(`cat ${restartOnPath(older)}`)).stdout).toMatch(/ stack=blue\n$/);
  expect((await read('green', entry)).result?.['older.summary']).toMatch(
    /marked by stack "blue", not this stack "green"/,
  );
  const destroyed = await destroy('green', 'systemd-unit', { name: older.name, directory: DIR });
  expect(destroyed.stderr).toMatch(/left as it is/);
  expect(await unit.show('older.service')).toMatchObject({ ActiveState: 'active' });
});
