/**
 * Every prop of SshHost judged as a plain-JavaScript app passes it: a wrong type, a missing host
 * and a misspelling each get one message naming the construct, the prop and the rule, every broken
 * rule is reported at once, and the handler boundary refuses what synth refuses when the value was
 * only known at apply.
 */
import { Testing, TerraformStack, TerraformVariable } from 'cdktf';
import { SshHost } from '../../../../constructs/linux/ssh-host';
import { parseSshTarget } from '../../../../src/linux/target';
import { synthError as failure, written } from '../synth-error';

const KEY = 'SHA256:' + 'A'.repeat(43);
const VALID = { host: '10.0.0.2', hostKey: KEY };

/** The synth error of a host with `props` over the valid ones. */
const synthError = (props: Record<string, unknown>): string =>
  failure((stack) => new SshHost(stack, 'n2', written({ ...VALID, ...props }) as never));

describe('SshHost props from plain JavaScript', () => {
  test.each([
    ['host', 42, 'host must be a host name or IP address, got 42'],
    ['port', '22', 'port must be an integer from 1 to 65535, got "22"'],
    ['user', ['root'], 'user must be a user name, got ["root"]'],
    ['hostKey', 7, 'hostKey must be an OpenSSH fingerprint such as SHA256:<43 base64 characters>, got 7'],
    ['readyTimeoutSeconds', '20', 'readyTimeoutSeconds must be an integer from 1 to 600, got "20"'],
    ['keepaliveIntervalSeconds', 1.5, 'keepaliveIntervalSeconds must be an integer from 0 to 3600, got 1.5'],
    ['commandTimeoutSeconds', true, 'commandTimeoutSeconds must be an integer from 1 to 3600, got true'],
  ])('%s: a wrong type names the prop and the rule', (prop, value, says) => {
    expect(synthError({ [prop]: value })).toBe(`test/n2: ${says}`);
  });

  test('insecureAcceptAnyHostKey: a wrong type is refused, and the host key is then still missing', () => {
    expect(synthError({ hostKey: undefined, insecureAcceptAnyHostKey: 'yes' })).toBe(
      '2 problems in 1 construct:\ntest/n2: insecureAcceptAnyHostKey must be a boolean, got "yes"\n' +
        'test/n2: hostKey must be set (or insecureAcceptAnyHostKey: true), got undefined',
    );
  });

  test('privateKeyEnv: a wrong type is refused without showing the value', () => {
    expect(synthError({ privateKeyEnv: 42 })).toBe(
      'test/n2: privateKeyEnv must be the name of an environment variable (letters, digits and _, at most 64 ' +
        'characters), got number; pass the name of the variable that holds the secret, not the secret',
    );
  });

  test('a missing host is refused at synth, not when the handler connects', () => {
    expect(synthError({ host: undefined })).toBe('test/n2: host is required: a host name or IP address');
  });

  test('a misspelled prop is refused with the closest name', () => {
    expect(synthError({ prot: 2222 })).toBe('test/n2: prot is not a prop of SshHost; did you mean port?');
    expect(synthError({ colour: 'red' })).toBe('test/n2: colour is not a prop of SshHost');
  });

  test('every broken rule is reported at once', () => {
    expect(synthError({ host: 'a b', port: 0, insecureAcceptAnyHostKey: true })).toBe(
      '3 problems in 1 construct:\ntest/n2: host must be a host name or IP address, got "a b"\n' +
        'test/n2: port must be an integer from 1 to 65535, got 0\n' +
        'test/n2: insecureAcceptAnyHostKey must be left unset when hostKey is given, got true',
    );
  });

  test('a value known only at apply passes synth and is refused by the same rule at the handler', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const port = new TerraformVariable(stack, 'port', { type: 'number' });
    new SshHost(stack, 'n2', { ...VALID, port: port.numberValue });
    expect(() => Testing.synth(stack)).not.toThrow();
    const target = { ...VALID, port: 0, user: 'root' };
    expect(() => parseSshTarget(target)).toThrow('Bad input: target.port: must be an integer from 1 to 65535, got 0');
  });

  test('the handler refuses every broken rule of a hand-written target at once', () => {
    const target = { host: 'a b', port: 22, user: 'root', hostKey: KEY, insecureAcceptAnyHostKey: true };
    expect(() => parseSshTarget(target)).toThrow(
      'Bad input: target.host: must be a host name or IP address, got "a b"; ' +
        'target.insecureAcceptAnyHostKey: must be left unset when hostKey is given, got true',
    );
  });

  test('a target without the fields added later gets the defaults an SshHost applies', () => {
    expect(parseSshTarget({ host: 'h', port: 22, user: 'deploy', hostKey: KEY })).toEqual({
      host: 'h',
      port: 22,
      user: 'deploy',
      hostKey: KEY,
      readyTimeoutSeconds: 20,
      keepaliveIntervalSeconds: 15,
      commandTimeoutSeconds: 30,
      sudo: true,
    });
  });
});
