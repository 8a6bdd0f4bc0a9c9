/**
 * Ordering on the constructs themselves: `a.applyAfter(b)` appends and is idempotent, so two edges
 * never replace each other, chains, and drops an edge to a retired object instead of failing.
 */
import { Testing, TerraformStack } from 'cdktf';
import { SshHost } from '../../../../constructs/linux/ssh-host';
import { SystemdUnit } from '../../../../constructs/linux/systemd-unit';
import { parsedEntry } from '../batch-apply';

const KEY = 'SHA256:' + 'A'.repeat(43);
const CONTENT = '[Service]\nExecStart=/bin/true\n';

const units = (retireB = false) => {
  const stack = new TerraformStack(Testing.app(), 'test');
  const host = new SshHost(stack, 'n2', { host: '10.0.0.2', hostKey: KEY, privateKeyEnv: 'N2_SSH_KEY' });
  const unit = (id: string, retired = false) =>
    new SystemdUnit(stack, id, { host, name: `hf-${id}.service`, content: CONTENT, retired });
  return { stack, a: unit('a'), b: unit('b', retireB), c: unit('c') };
};

describe('ObjectConstruct.applyAfter', () => {
  test('two edges from one object are both kept, and a repeated call changes nothing', () => {
    const { stack, a, b, c } = units();
    expect(c.applyAfter(a).applyAfter(b).applyAfter(a)).toBe(c);
    const json = JSON.parse(Testing.synth(stack));
    expect(parsedEntry(json, 'n2', 'c').after).toEqual(['a', 'b']);
    expect(json.resource.terraform_data.c_lifecycle.depends_on).toEqual([
      'terraform_data.a_lifecycle',
      'terraform_data.b_lifecycle',
    ]);
  });

  test('an edge to a retired object is dropped: its removal runs whatever the order', () => {
    const { stack, b, c } = units(true);
    c.applyAfter(b);
    const json = JSON.parse(Testing.synth(stack));
    expect(parsedEntry(json, 'n2', 'c').after).toBeUndefined();
    expect(json.resource.terraform_data.c_lifecycle.depends_on).toBeUndefined();
  });

  // An audit (2026-12-05): from JavaScript, null threw a TypeError and a host was dropped in silence.
  test('anything but an object construct is a problem naming applyAfter, all of them at once', () => {
    const { stack, a, b } = units();
    const host = new SshHost(stack, 'n3', { host: '10.0.0.3', hostKey: KEY });
    a.applyAfter(null as never);
    b.applyAfter(host as never);
    expect(() => Testing.synth(stack)).toThrow(
      '2 problems in 2 constructs:\ntest/a: applyAfter must be an object construct (a unit, a metric server, a ' +
        'Repo...), got null\ntest/b: applyAfter must be an object construct (a unit, a metric server, a Repo...), ' +
        'got a SshHost',
    );
  });

  // An audit (2026-12-05): with both set, forget won in silence and the object stayed on its target.
  test('retired and forget together are refused naming forget', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const host = new SshHost(stack, 'n2', { host: '10.0.0.2', hostKey: KEY });
    new SystemdUnit(stack, 'a', { host, name: 'hf-a.service', content: CONTENT, retired: true, forget: true });
    expect(() => Testing.synth(stack)).toThrow(
      'test/a: forget must be left unset with retired: true (retired destroys the object, forget leaves it)',
    );
  });
});
