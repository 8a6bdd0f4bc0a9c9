/**
 * A plan that removes a drop-in tells the host's read (`.removing`), which names the instances its destroy restarts
 * (src/core/batch-removals.ts). Regression: the read was told nothing, so a template drop-in's destroy restarted
 * instances no line of the plan named.
 */
import { join } from 'node:path';
import { Testing, TerraformStack } from 'cdktf';
import { SshHost } from '../../../../constructs/linux/ssh-host';
import { SystemdDropIn } from '../../../../constructs/linux/systemd-drop-in';
import { SystemdUnit } from '../../../../constructs/linux/systemd-unit';
import { queryOf } from '../batch-apply';
import { recordProject } from '../core/record-project';

const project = recordProject('homelab-removing-');
const service = '[Service]\nExecStart=/bin/sleep infinity\n';
const env = '[Service]\nEnvironment=A=1\n';
const place = (unit: string) => ({ directory: '/etc/systemd/system', name: '10-env', unit });

/** One synth of stack `lab`: the template `t@.service` and `p.service`, with `dropIns` (`p…` on the plain unit). */
const synth = (dropIns: ReadonlyArray<readonly [string, Record<string, unknown>?]>) => {
  const stack = new TerraformStack(Testing.app({ outdir: join(project.dir(), 'cdktf.out') }), 'lab');
  const host = new SshHost(stack, 'host', { host: '10.0.0.2', insecureAcceptAnyHostKey: true });
  const unit = new SystemdUnit(stack, 't', { host, name: 't@.service', content: service });
  const plain = new SystemdUnit(stack, 'p', { host, name: 'p.service', content: service });
  for (const [id, props] of dropIns)
    new SystemdDropIn(stack, id, { unit: id.startsWith('p') ? plain : unit, name: '10-env', content: env, ...props });
  return queryOf(JSON.parse(Testing.synth(stack)), 'host');
};

test('a stack that removes no drop-in tells its read of no removal', () => {
  expect(synth([['t-env']])).not.toHaveProperty('.removing');
  // The second synth reads the record the first wrote: every object in it is still declared.
  expect(synth([['t-env']])).not.toHaveProperty('.removing');
});

test("a drop-in deleted from the code is in its host read's removals, with the identity its record holds", () => {
  synth([['t-env'], ['p-env']]);
  const query = synth([]);
  expect(JSON.parse(query['.removing'] ?? '{}')).toEqual({
    'p-env': { kind: 'systemd-drop-in', identity: place('p.service') },
    't-env': { kind: 'systemd-drop-in', identity: place('t@.service') },
  });
});

test("a retired drop-in is in its host read's removals, adopt with it; a forgotten one is not", () => {
  const query = synth([
    ['t-env', { retired: true, adopt: true }],
    ['p-env', { forget: true }],
  ]);
  expect(JSON.parse(query['.removing'] ?? '{}')).toEqual({
    't-env': { kind: 'systemd-drop-in', identity: place('t@.service'), adopt: true },
  });
});

test('a unit deleted from the code is not: only a kind whose read says what its removal does', () => {
  const stack = new TerraformStack(Testing.app({ outdir: join(project.dir(), 'cdktf.out') }), 'lab');
  const host = new SshHost(stack, 'host', { host: '10.0.0.2', insecureAcceptAnyHostKey: true });
  new SystemdUnit(stack, 'gone', { host, name: 'gone.service', content: service });
  new SystemdUnit(stack, 'kept', { host, name: 'kept.service', content: service });
  Testing.synth(stack);
  const next = new TerraformStack(Testing.app({ outdir: join(project.dir(), 'cdktf.out') }), 'lab');
  const again = new SshHost(next, 'host', { host: '10.0.0.2', insecureAcceptAnyHostKey: true });
  new SystemdUnit(next, 'kept', { host: again, name: 'kept.service', content: service });
  expect(queryOf(JSON.parse(Testing.synth(next)), 'host')).not.toHaveProperty('.removing');
});
