/**
 * What a host's batch apply writes of the stack (issue 27 item 3), against the fake systemd: the record ends
 * in the run's `stack=<id>`; an apply run by hand (no HOMELAB_STACK) keeps the stack the record named, so it
 * never strips another stack's mark; an earlier version's record gets the stack at the object's next apply.
 */
import { digestOf } from '../../../../src/core/canonical';
import type { UnitSpec } from '../../../../src/linux/systemd-unit';
import { restartOnPath } from '../../../../src/linux/unit-file';
import { linuxDomain } from '../../../../handlers/linux/domain';
import { invokeBatchApply } from '../../../support/run-handler';
import { fakeSystemd, TARGET } from './fake-systemd';

const spec = (exec: string): UnitSpec => ({
  name: 'a.service',
  directory: '/etc/systemd/system',
  content: `[Service]\nExecStart=${exec}\n[Install]\nWantedBy=multi-user.target\n`,
  enabled: true,
  started: true,
  restartOn: digestOf([]),
  startTimeoutSeconds: 5,
  unmask: false,
});
const RECORD = restartOnPath({ name: 'a.service' });

const apply = (host: ReturnType<typeof fakeSystemd>, exec: string, stack?: string) =>
  invokeBatchApply(
    linuxDomain(async () => host.remote),
    TARGET,
    { a: { kind: 'systemd-unit', spec: spec(exec) } },
    stack === undefined ? {} : { HOMELAB_STACK: stack },
  );

test("the record names the run's stack; an apply by hand keeps it; an earlier version's gets it", async () => {
  const host = fakeSystemd();
  expect(await apply(host, '/bin/sleep 1', 'blue')).toMatchObject({ code: 0 });
  expect(host.files.get(RECORD)).toMatch(/^[0-9a-f]{64}.* stack=blue\n$/);
  expect(await apply(host, '/bin/sleep 2')).toMatchObject({ code: 0 });
  expect(host.files.get(RECORD)).toMatch(/ stack=blue\n$/);
  host.files.set(RECORD, `${digestOf([])}\n`);
  expect(await apply(host, '/bin/sleep 3', 'green')).toMatchObject({ code: 0 });
  expect(host.files.get(RECORD)).toMatch(/ stack=green\n$/);
});
