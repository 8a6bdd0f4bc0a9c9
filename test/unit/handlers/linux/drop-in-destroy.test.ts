/**
 * A drop-in's destroy against the fake systemd: its file goes before its mark, so a removal that fails (or a
 * kill between the two steps) leaves the drop-in this stack's, and the retry fails again or finishes, never
 * "not created by this stack" with the file still there.
 */
import { digestOf } from '../../../../src/core/canonical';
import type { DropInSpec } from '../../../../src/linux/systemd-drop-in';
import type { UnitSpec } from '../../../../src/linux/systemd-unit';
import { dropInMarkPath } from '../../../../src/linux/unit-ownership';
import { linuxDomain } from '../../../../handlers/linux/domain';
import { invoke, invokeBatchApply } from '../../../support/run-handler';
import { fakeSystemd, TARGET } from './fake-systemd';

const DIR = '/etc/systemd/system';
const unit: UnitSpec = {
  name: 'app.service',
  directory: DIR,
  content: '[Service]\nExecStart=/bin/sleep infinity\n',
  enabled: false,
  started: true,
  restartOn: digestOf([]),
  startTimeoutSeconds: 5,
  unmask: false,
};
const dropIn: DropInSpec = {
  unit: 'app.service',
  name: '10-env',
  directory: DIR,
  content: '[Service]\nEnvironment=A=1\n',
  startTimeoutSeconds: 5,
};
const identity = { unit: dropIn.unit, name: dropIn.name, directory: dropIn.directory };
const FILE = `${DIR}/app.service.d/10-env.conf`;

const applied = async () => {
  const host = fakeSystemd();
  const run = await invokeBatchApply(
    linuxDomain(async () => host.remote),
    TARGET,
    {
      app: { kind: 'systemd-unit', spec: unit },
      env: { kind: 'systemd-drop-in', spec: dropIn, after: ['app'] },
    },
  );
  expect(run.code).toBe(0);
  expect(host.files.has(dropInMarkPath(dropIn))).toBe(true);
  return host;
};
const destroy = (host: ReturnType<typeof fakeSystemd>) =>
  invoke(
    linuxDomain(async () => host.remote),
    'systemd-drop-in',
    'destroy',
    TARGET,
    identity,
  );

describe('drop-in destroy', () => {
  test('removes the file before it forgets the mark, in one request', async () => {
    const host = await applied();
    expect(await destroy(host)).toMatchObject({ code: 0 });
    const steps = host.commands.filter((command) => /^root: (remove|forget)-drop-in /.test(command));
    expect(steps).toEqual([
      `root: remove-drop-in ${DIR} app.service 10-env`,
      `root: forget-drop-in ${DIR} app.service 10-env`,
    ]);
    expect([host.files.has(FILE), host.files.has(dropInMarkPath(dropIn))]).toEqual([false, false]);
  });

  // Regression: the mark went first, so the retry said "never adopted", exited 0 and left the file.
  test('keeps the mark when the file cannot be removed, and the retry fails again', async () => {
    const host = await applied();
    host.refuseWrites(FILE);
    const first = await destroy(host);
    expect(first.code).toBe(1);
    expect(first.stderr).toContain(`drop-in ${FILE} on h:22 was not removed`);
    expect(first.stderr).toContain("the stack's mark stays until its file is gone");
    expect([host.files.has(FILE), host.files.has(dropInMarkPath(dropIn))]).toEqual([true, true]);
    const second = await destroy(host);
    expect(second.code).toBe(1);
    expect(second.stderr).not.toContain('not created by this stack');
  });
});
