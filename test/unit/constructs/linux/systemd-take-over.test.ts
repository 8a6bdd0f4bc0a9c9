/**
 * `takeOver` on the systemd constructs (issue 27 item 3) reaches the handler: in the batch read's query (the plan
 * says the object will be taken over from the stack its mark names) and in the batch apply's entry (the apply may
 * take it); left out, neither says it. A value that is not a boolean stops the synth naming the prop.
 */
import { Testing, TerraformStack } from 'cdktf';
import { SshHost } from '../../../../constructs/linux/ssh-host';
import { SystemdDropIn } from '../../../../constructs/linux/systemd-drop-in';
import { SystemdUnit } from '../../../../constructs/linux/systemd-unit';
import { entryOf, queryOf } from '../batch-apply';

const UNIT = '[Service]\nExecStart=/bin/true\n';
const NAMES = ['agent', 'probe', 'probe-tty9', 'limits'];

const synth = (takeOver: boolean | undefined) => {
  const stack = new TerraformStack(Testing.app(), 'test');
  const host = new SshHost(stack, 'n2', { host: '10.0.0.2', insecureAcceptAnyHostKey: true });
  const unit = new SystemdUnit(stack, 'agent', { host, name: 'agent.service', content: UNIT, takeOver });
  const template = new SystemdUnit(stack, 'probe', { host, name: 'probe@.service', content: UNIT, takeOver });
  template.instance('tty9', { takeOver });
  new SystemdDropIn(stack, 'limits', { unit, name: '10-limits', content: '[Service]\nNice=5\n', takeOver });
  return JSON.parse(Testing.synth(stack));
};

test('takeOver: true reaches the read query and the apply entry of the unit, instance and drop-in', () => {
  const json = synth(true);
  for (const name of NAMES) {
    expect(JSON.parse(queryOf(json, 'n2')[name] as string)).toMatchObject({ takeOver: true });
    expect(JSON.parse(entryOf(json, 'n2', name).text)).toMatchObject({ takeOver: true });
  }
  for (const name of NAMES) expect(entryOf(synth(undefined), 'n2', name).text).not.toContain('takeOver');
});

test('a takeOver that is not a boolean stops the synth, naming the prop', () => {
  const stack = new TerraformStack(Testing.app(), 'test');
  const host = new SshHost(stack, 'n2', { host: '10.0.0.2', insecureAcceptAnyHostKey: true });
  const wrong = { host, name: 'agent.service', content: UNIT, takeOver: 'yes' as unknown as boolean };
  new SystemdUnit(stack, 'agent', wrong);
  expect(() => Testing.synth(stack)).toThrow(/^test\/agent: takeOver must be a boolean, got "yes"$/);
});
