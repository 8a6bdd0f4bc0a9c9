/**
 * discover's variables never take a name the CommonJS wrapper binds (an audit, 2026-12-05): a unit called
 * require.service with a drop-in made `const require = new SystemdUnit(...)`, which node refuses to run
 * (SyntaxError: Identifier 'require' has already been declared), in the JavaScript it writes and in what the
 * TypeScript compiles to.
 */
import { hostFiles } from './host-files';
import { run } from './run-stack';
import { variableName } from '../../../../src/discover/literal';
import { discoveredStack } from '../../../../src/discover/stack';
import { systemdDeclarations } from '../../../../src/discover/systemd';
import type { LiveUnit } from '../../../../src/linux/unit-control';

const UNIT = '[Unit]\nDescription=x\n[Service]\nExecStart=/bin/sleep infinity\n';
const DROP_IN = '[Service]\nNice=1\n';
const status: LiveUnit['status'] = {
  loadState: 'loaded',
  activeState: 'inactive',
  subState: 'dead',
  unitFileState: 'static',
  needDaemonReload: false,
};

/** The stack discover writes for a unit `name` and a drop-in of it: the drop-in names the unit's variable. */
const stackFor = (name: string, language: 'ts' | 'js') => {
  const { found, live } = hostFiles({ [`${name}.service`]: UNIT, [`${name}.service.d/10-a.conf`]: DROP_IN }, status);
  const declared = systemdDeclarations({ host: 'h' }, found, live);
  return discoveredStack([declared], { stack: 's', from: 'cdktf-homelab', language, read: [] }).text;
};

test.each(['require', 'module', 'exports'].flatMap((name) => [[name, 'js'] as const, [name, 'ts'] as const]))(
  'a unit named %s.service with a drop-in gives a %s stack that runs as a CommonJS module',
  (name, language) => {
    const made = run(stackFor(name, language), language);
    expect(made.map((m) => `${m.construct} ${m.id}`)).toEqual([
      'SshHost host',
      `SystemdUnit ${name}`,
      `SystemdDropIn ${name}-10-a`,
    ]);
  },
);

test('a variable is never a name the CommonJS wrapper binds', () => {
  const taken = new Set<string>();
  expect(['require', 'module', 'exports'].map((hint) => variableName(hint, taken))).toEqual([
    '_require',
    '_module',
    '_exports',
  ]);
});
