/**
 * Intent first, effect second, record last in the batch apply (issue 26), against the fake systemd:
 * the intents go in one root helper request before the first write and are removed with the records in one after
 * the read back; a connection lost between leaves them, and the read then names the pending restart
 * and takes the unit as the stack's; the next apply finishes; an object left as it was keeps none.
 */
import { digestOf } from '../../../../src/core/canonical';
import type { UnitSpec } from '../../../../src/linux/systemd-unit';
import type { Remote } from '../../../../src/linux/ssh';
import { linuxDomain } from '../../../../handlers/linux/domain';
import { tooManyToName } from '../../../../handlers/linux/unit-intents';
import { invokeBatch, invokeBatchApply } from '../../../support/run-handler';
import { fakeSystemd, TARGET } from './fake-systemd';

const DIR = '/etc/systemd/system';
const INTENTS = '/var/lib/cdktf-homelab/intents';
const unit = (name: string, exec = '/bin/sleep infinity'): UnitSpec => ({
  name,
  directory: DIR,
  content: `[Service]\nExecStart=${exec}\n[Install]\nWantedBy=multi-user.target\n`,
  enabled: true,
  started: true,
  restartOn: digestOf([]),
  startTimeoutSeconds: 5,
  unmask: false,
});
const objects = (...specs: UnitSpec[]) =>
  Object.fromEntries(specs.map((spec) => [spec.name.split('.')[0] as string, { kind: 'systemd-unit', spec }]));
const intents = (host: ReturnType<typeof fakeSystemd>) =>
  [...host.files.keys()].filter((path) => path.startsWith(`${INTENTS}/`)).sort();

test('all intents go in one request before the first write, and out with the records after the read back', async () => {
  const host = fakeSystemd();
  const run = await invokeBatchApply(
    linuxDomain(async () => host.remote),
    TARGET,
    objects(unit('a.service'), unit('b.service')),
  );
  expect(run.code).toBe(0);
  // The fake logs each step of a root helper request as `root: <step>`, in order.
  const steps = host.commands.filter((command) => command.startsWith('root: '));
  const firstWrite = steps.findIndex((command) => command.startsWith('root: write-unit'));
  expect(steps.slice(0, 2)).toEqual([
    expect.stringMatching(/^root: intent-unit a\.service sha256=[0-9a-f]{64} restart=pending unit=a\.service$/),
    expect.stringMatching(/^root: intent-unit b\.service /),
  ]);
  expect(firstWrite).toBe(2);
  expect(steps.slice(-4)).toEqual([
    expect.stringMatching(/^root: record-unit a\.service [0-9a-f]{64}/),
    expect.stringMatching(/^root: record-unit b\.service /),
    'root: clear-unit-intent a.service',
    'root: clear-unit-intent b.service',
  ]);
  expect(intents(host)).toEqual([]);
  expect(host.files.get('/var/lib/cdktf-homelab/restart-on/a.service')).toBe(`${digestOf([])}\n`);
});

test('a connection lost after the write leaves the intent: read as pending, never foreign, then cleared', async () => {
  const host = fakeSystemd();
  let writes = 0;
  const remote: Remote = {
    run: async (command, stdin, effect) => {
      if (writes > 0) host.dropConnection();
      if (stdin?.includes('\nwrite-unit ')) writes += 1;
      return host.remote.run(command, stdin, effect);
    },
    close: () => undefined,
  };
  const spec = unit('a.service');
  const cut = await invokeBatchApply(
    linuxDomain(async () => remote),
    TARGET,
    objects(spec),
  );
  expect(cut.stderr).toMatch(/lost during apply/);
  expect(intents(host)).toEqual([`${INTENTS}/a.service`]);
  expect(host.files.get(`${INTENTS}/a.service`)).toMatch(
    /^cdktf-homelab-intent since=\d+ sha256=[0-9a-f]{64} restart=pending unit=a.service\n$/,
  );

  const fresh = fakeSystemd();
  for (const [path, text] of host.files) fresh.files.set(path, text);
  const read = await invokeBatch(
    linuxDomain(async () => fresh.remote),
    TARGET,
    { a: { kind: 'systemd-unit', spec } },
  );
  expect(read.result?.['a.summary']).toMatch(
    /^unit a\.service on h:22 \(inactive\/dead\): restart pending since an interrupted apply \(content changed at /,
  );
  expect(read.result?.['a.summary']).not.toMatch(/not created by this stack/);
  expect(
    (
      await invokeBatchApply(
        linuxDomain(async () => fresh.remote),
        TARGET,
        objects(spec),
      )
    ).code,
  ).toBe(0);
  expect(intents(fresh)).toEqual([]);
  expect(fresh.state('a.service')).toBe('active/running');
});

test('an object that fails and is undone, and one skipped after it, keep no intent of this apply', async () => {
  const host = fakeSystemd();
  const run = await invokeBatchApply(
    linuxDomain(async () => host.remote),
    TARGET,
    {
      bad: { kind: 'systemd-unit', spec: unit('bad.service', '/bin/false') },
      next: { kind: 'systemd-unit', spec: unit('next.service'), after: ['bad'] },
    },
  );
  expect(run.code).toBe(1);
  expect(host.files.has(`${DIR}/bad.service`)).toBe(false);
  expect(intents(host)).toEqual([]);
});

// A template's intent names the instances it is to link again (unit-template-disable.ts): one the root helper would
// refuse as too long is refused alone before any change, naming why, rather than failing every object's intent.
describe("a template's intent that cannot name every instance it is to link again", () => {
  const entry = (count: number) => ({
    object: { sort: 'unit', name: 'p@.service', directory: DIR } as const,
    unit: 'p@.service',
    restart: false,
    relink: { etc: Array.from({ length: count }, (_, i) => `p@worker-instance-${i}.service`), run: [] },
  });

  test('is refused, naming the instances and the fix', () => {
    expect(tooManyToName('h', entry(10))).toBeUndefined();
    expect(tooManyToName('h', entry(40))).toEqual(
      expect.objectContaining({
        message: expect.stringMatching(
          new RegExp(
            '^p@\\.service on h was not applied: .*unlinks 40 instances .*\\(p@worker-instance-0\\.service, ' +
              '.*at most 1024 characters.*declare them \\(SystemdUnit\\.instance\\)',
          ),
        ),
      }),
    );
  });
});
