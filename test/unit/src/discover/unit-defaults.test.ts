// A discovered unit states enabled and started only where they differ from the kind's defaults (a template's are
// false): the SystemdUnit built from its props wants what was live, so a default stated twice cannot drift (issue 29).
import { TerraformStack, Testing } from 'cdktf';
import { SshHost } from '../../../../constructs/linux/ssh-host';
import { SystemdUnit } from '../../../../constructs/linux/systemd-unit';
import { sha256Hex } from '../../../../src/core/canonical';
import { systemdDeclarations } from '../../../../src/discover/systemd';
import type { LiveUnit } from '../../../../src/linux/unit-control';

// An [Install] to enable: systemd says enabled or disabled only of a unit that has one (else static).
const CONTENT =
  '[Unit]\nDescription=x\n[Service]\nExecStart=/bin/sleep infinity\n' +
  '[Install]\nWantedBy=multi-user.target\nDefaultInstance=a\n';
const RUNNING = { activeState: 'active', subState: 'running' };
const STOPPED = { activeState: 'inactive', subState: 'dead' };

test.each([
  ['a unit enabled and running', 'w.service', 'enabled', RUNNING, true, true],
  ['a unit disabled and stopped', 'w.service', 'disabled', STOPPED, false, false],
  ['a template disabled', 'p@.service', 'disabled', STOPPED, false, false],
  ['a template enabled (DefaultInstance)', 'p@.service', 'enabled', STOPPED, true, false],
])('%s: the SystemdUnit of its discovered props wants what was live', (_, name, unitFileState, state, on, run) => {
  const live: LiveUnit = {
    status: { loadState: 'loaded', unitFileState, needDaemonReload: false, ...state },
    fileSha256: sha256Hex(CONTENT),
    restartOn: undefined,
  };
  const found = { units: [{ name, content: CONTENT }], instances: [], dropIns: [], skipped: [] };
  const discovered = systemdDeclarations({ host: 'h' }, found, [live]);
  expect(discovered.skipped).toEqual([]);
  const { host: _host, adopt: _adopt, ...props } = discovered.declarations[1]?.props ?? {};
  const stack = new TerraformStack(Testing.app(), 'test');
  const host = new SshHost(stack, 'h', { host: 'h', hostKey: `SHA256:${'A'.repeat(43)}`, privateKeyEnv: 'KEY' });
  const unit = new SystemdUnit(stack, 'u', { host, name, content: CONTENT, ...props });
  expect({ enabled: unit.spec.enabled, started: unit.spec.started }).toEqual({ enabled: on, started: run });
});

test.each([
  ['enabled and running', 'enabled', RUNNING, true, true],
  ['disabled and stopped', 'disabled', STOPPED, false, false],
])('an instance %s: the SystemdUnitInstance of its discovered props wants what was live', (_, state, run, on, up) => {
  const status = (unitFileState: string, now: object) => ({
    status: { loadState: 'loaded', unitFileState, needDaemonReload: false, ...STOPPED, ...now },
    restartOn: undefined,
  });
  const found = {
    units: [{ name: 'p@.service', content: CONTENT }],
    instances: ['p@a.service'],
    dropIns: [],
    skipped: [],
  };
  const discovered = systemdDeclarations({ host: 'h' }, found, [
    { ...status('disabled', STOPPED), fileSha256: sha256Hex(CONTENT) },
    { ...status(state, run), fileSha256: undefined },
  ]);
  expect(discovered.skipped).toEqual([]);
  const { template: _template, instance, adopt: _adopt, ...props } = discovered.declarations[2]?.props ?? {};
  const stack = new TerraformStack(Testing.app(), 'test');
  const host = new SshHost(stack, 'h', { host: 'h', hostKey: `SHA256:${'A'.repeat(43)}`, privateKeyEnv: 'KEY' });
  const template = new SystemdUnit(stack, 'p', { host, name: 'p@.service', content: CONTENT });
  const made = template.instance(String(instance), props);
  expect({ enabled: made.spec.enabled, started: made.spec.started }).toEqual({ enabled: on, started: up });
});

// A drop-in emptying WantedBy= makes systemd call a unit static (measured, systemd 252). discover judged
// `enabled` by the unit's own text, whose [Install] it reset: true by default, so the unit read "cannot be
// enabled" and was left out. It states enabled: false, which its own text alone would not default to.
test('a unit whose drop-in resets its [Install] (static) is declared, enabled false, and reads in sync', () => {
  const reset = { unit: 'w.service', name: 'off', content: '[Install]\nWantedBy=\n' };
  const live = (fileSha256: string): LiveUnit => ({
    status: { loadState: 'loaded', unitFileState: 'static', needDaemonReload: false, ...RUNNING },
    fileSha256,
    restartOn: undefined,
  });
  const found = { units: [{ name: 'w.service', content: CONTENT }], instances: [], dropIns: [reset], skipped: [] };
  const discovered = systemdDeclarations({ host: 'h' }, found, [
    live(sha256Hex(CONTENT)),
    live(sha256Hex(reset.content)),
  ]);
  expect(discovered.skipped).toEqual([]);
  const unit = discovered.declarations.find((declaration) => declaration.key === 'unit:w.service');
  expect(unit?.props).toMatchObject({ enabled: false });
  const stack = new TerraformStack(Testing.app(), 'test');
  const host = new SshHost(stack, 'h', { host: 'h', hostKey: `SHA256:${'A'.repeat(43)}`, privateKeyEnv: 'KEY' });
  const { host: _host, adopt: _adopt, ...props } = unit?.props ?? {};
  const made = new SystemdUnit(stack, 'u', { host, name: 'w.service', content: CONTENT, ...props });
  expect(made.spec.enabled).toBe(false);
});
