import { Testing, TerraformStack } from 'cdktf';
import { SshHost, type SshHostProps } from '../../../../constructs/linux/ssh-host';
import { SystemdUnit, type SystemdUnitProps } from '../../../../constructs/linux/systemd-unit';
import { renderUnit } from '../../../../src/linux/render-unit';
import { parsedEntry } from '../batch-apply';

const KEY = 'SHA256:' + 'A'.repeat(43);
const synthUnit = (unit: Partial<SystemdUnitProps> = {}, host: Partial<SshHostProps> = {}) => {
  const stack = new TerraformStack(Testing.app(), 'test');
  const n2 = new SshHost(stack, 'n2', { host: '10.0.0.2', hostKey: KEY, privateKeyEnv: 'N2_SSH_KEY', ...host });
  new SystemdUnit(stack, 'check', {
    host: n2,
    name: 'hf-node-check.service',
    content: '[Service]\nExecStart=/bin/true\n',
    ...unit,
  });
  return JSON.parse(Testing.synth(stack));
};

describe('SystemdUnit', () => {
  test.each([
    ['declared', {}],
    ['retired', { retired: true }],
  ])(
    'a %s unit passes its adopt to its destroy hook, which removes an unmarked unit only then (issue 27)',
    (_, over) => {
      type Hook = { provisioner: Array<{ 'local-exec': { environment: Record<string, string> } }> };
      const hookEnv = (synth: { resource: { terraform_data: Record<string, Hook> }; removed?: Hook[] }) =>
        (synth.removed?.[0] ?? synth.resource.terraform_data.check_lifecycle)?.provisioner[0]?.['local-exec']
          .environment;
      expect(hookEnv(synthUnit({ ...over, adopt: true }))).toMatchObject({ HOMELAB_ADOPT: 'true' });
      expect(hookEnv(synthUnit(over))).not.toHaveProperty('HOMELAB_ADOPT');
    },
  );

  test('all defaults: /etc/systemd/system, enabled if [Install] allows, started, no restartOn; root over 22', () => {
    const synth = synthUnit();
    expect(parsedEntry(synth, 'n2', 'check').spec).toEqual({
      name: 'hf-node-check.service',
      directory: '/etc/systemd/system',
      content: '[Service]\nExecStart=/bin/true\n',
      enabled: false,
      started: true,
      restartOn: expect.stringMatching(/^[0-9a-f]{64}$/),
      startTimeoutSeconds: 90,
      unmask: false,
    });
    expect(JSON.parse(synth.resource.terraform_data.n2_apply.input.target)).toEqual({
      host: '10.0.0.2',
      port: 22,
      user: 'root',
      hostKey: KEY,
      privateKeyEnv: 'N2_SSH_KEY',
      readyTimeoutSeconds: 20,
      keepaliveIntervalSeconds: 15,
      sudo: false,
    });
  });

  test('commandTimeoutSeconds reaches the target only when set, so the handler default applies otherwise', () => {
    const target = JSON.parse(
      synthUnit({}, { commandTimeoutSeconds: 5 }).resource.terraform_data.n2_apply.input.target,
    );
    expect(target.commandTimeoutSeconds).toBe(5);
  });

  test('a non-root user runs privileged commands through sudo', () => {
    expect(JSON.parse(synthUnit({}, { user: 'deploy' }).resource.terraform_data.n2_apply.input.target).sudo).toBe(true);
  });

  test('sections render through renderUnit, a key may repeat', () => {
    const content = [
      { name: 'Unit', lines: [['Description', 'check']] as const },
      {
        name: 'Service',
        lines: [
          ['ExecStartPre', '/bin/a'],
          ['ExecStartPre', '/bin/b'],
        ] as const,
      },
    ];
    const text = '[Unit]\nDescription=check\n\n[Service]\nExecStartPre=/bin/a\nExecStartPre=/bin/b\n';
    expect(`${renderUnit(content)}`).toBe(text);
    expect(parsedEntry(synthUnit({ content }), 'n2', 'check').spec.content).toBe(text);
  });

  test('identity is name and directory: a new name replaces the unit, new content does not', () => {
    const a = synthUnit().resource.terraform_data.check_lifecycle.triggers_replace;
    expect(
      synthUnit({ content: '[Service]\nExecStart=/bin/false\n' }).resource.terraform_data.check_lifecycle
        .triggers_replace,
    ).toEqual(a);
    expect(synthUnit({ name: 'other.service' }).resource.terraform_data.check_lifecycle.triggers_replace).not.toEqual(
      a,
    );
  });

  test.each<[string, Partial<SystemdUnitProps>, RegExp]>([
    ['an empty name', { name: '' }, /check: name must be non-empty, got ""/],
    ['a name without a type', { name: 'node-check' }, /name must be a name ending in a unit type/],
    ['an unknown type', { name: 'x.daemon' }, /name must be a name ending in a unit type/],
    ['a shell metacharacter', { name: 'x;rm -rf.service' }, /name must be made of letters, digits/],
    ['a space', { name: 'my unit.service' }, /name must be made of letters, digits/],
    ['a slash', { name: 'a/b.service' }, /name must be made of letters, digits/],
    [
      'a name starting with @',
      { name: '@x.service' },
      /name must be a name whose template prefix before @ is not empty/,
    ],
    ['a 256-character name', { name: 'a'.repeat(248) + '.service' }, /name must be at most 255 characters/],
    ['a started template', { name: 'backup@.service', started: true }, /started must be false for a template unit/],
    [
      'a start deadline of 0',
      { startTimeoutSeconds: 0 },
      /startTimeoutSeconds must be an integer from 1 to 3600, got 0/,
    ],
    ['a relative directory', { directory: 'etc/systemd' }, /directory must be an absolute path/],
    ['a directory with ..', { directory: '/etc/../root' }, /directory must be a path without \.\./],
    ['a directory with a quote', { directory: "/etc/sys'temd" }, /directory must be an absolute path/],
    // Issue 27: an option to systemctl, a hidden file, and a directory systemd never loads from.
    [
      'a name that reads as an option',
      { name: '-rf.service' },
      /name must be a name that starts with neither - nor \./,
    ],
    ['a hidden name', { name: '..service' }, /name must be a name that starts with neither - nor \./],
    [
      'the temp directory',
      { directory: '/tmp' },
      /directory must be one of systemd's unit directories \(\/etc\/systemd/,
    ],
  ])('rejects %s at synth', (_, props, message) => {
    expect(() => synthUnit(props)).toThrow(message);
  });

  test.each([
    ['a.service'],
    ['backup@daily.timer'],
    ['foo@bar@baz.service'],
    ['dev-sda1.mount'],
    ['a'.repeat(247) + '.service'],
  ])('accepts %s', (name) => {
    expect(() => synthUnit({ name })).not.toThrow();
  });
});

describe('SshHost', () => {
  test.each<[string, Partial<SshHostProps>, RegExp]>([
    [
      'no host key and no opt-out',
      { hostKey: undefined },
      /n2: hostKey must be set \(or insecureAcceptAnyHostKey: true\)/,
    ],
    [
      'a host key that is not a SHA256 fingerprint',
      { hostKey: 'ssh-ed25519 AAAA' },
      /hostKey must be an OpenSSH fingerprint/,
    ],
    [
      'both a host key and the opt-out',
      { insecureAcceptAnyHostKey: true },
      /insecureAcceptAnyHostKey must be left unset when hostKey is given/,
    ],
    [
      'a private key where its variable name belongs',
      { privateKeyEnv: '-----BEGIN OPENSSH PRIVATE KEY-----' },
      /privateKeyEnv must be the name of an environment variable/,
    ],
    ['port 0', { port: 0 }, /port must be an integer from 1 to 65535/],
    [
      'a command budget of 0 s',
      { commandTimeoutSeconds: 0 },
      /commandTimeoutSeconds must be an integer from 1 to 3600/,
    ],
    ['a host with a space', { host: 'a b' }, /host must be a host name or IP address/],
  ])('rejects %s at synth', (_, props, message) => {
    expect(() => synthUnit({}, props)).toThrow(message);
  });
});
