/**
 * Issue 16 item 14 at the handler boundary: a hand-written or tampered target carrying a secret in
 * a `...Env` field fails naming the field and the rule, never showing the value.
 */
import { HandlerError } from '../../../../src/core/errors';
import { isEnvName, parseAs } from '../../../../src/core/parse';
import { sshTargetSchema } from '../../../../src/linux/target';
import { metricServerSpec } from '../../../../src/pve/metric-server';
import { pveTargetSchema } from '../../../../src/pve/target';

const SECRETS = [
  ['a PVE API token', 'root@pam!tf=4c1d2a8e-6f3b-4e1a-9d27-SECRETSECRET'],
  ["a private key's text", '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1SECRET\n-----END OPENSSH PRIVATE KEY-----'],
  ['letters and digits longer than 64 characters', 'ghp0SECRET' + '7Qx2Lm9Zr4'.repeat(6)],
] as const;

const INPUTS = [
  ['target.tokenEnv', pveTargetSchema, (v: string) => ({ endpoints: ['https://n1:8006'], tokenEnv: v })],
  [
    'target.privateKeyEnv',
    sshTargetSchema,
    (v: string) => ({ host: 'h', port: 22, user: 'root', insecureAcceptAnyHostKey: true, privateKeyEnv: v }),
  ],
  [
    'spec.tokenEnv',
    metricServerSpec,
    (v: string) => ({ id: 'lab-m', type: 'influxdb', server: 's', port: 8089, options: {}, tokenEnv: v }),
  ],
  [
    'spec.otelHeadersEnv',
    metricServerSpec,
    (v: string) => ({ id: 'lab-m', type: 'opentelemetry', server: 's', port: 4318, options: {}, otelHeadersEnv: v }),
  ],
] as const;

describe.each(INPUTS)('%s', (field, schema, input) => {
  test.each(SECRETS)('refuses %s naming the field and the rule, without the value', (_, secret) => {
    const [what] = field.split('.');
    let error: unknown;
    try {
      parseAs(schema as Parameters<typeof parseAs>[0], input(secret), what ?? '');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(HandlerError);
    const line = (error as HandlerError).oneLine();
    expect(line).toMatch(new RegExp(`^Bad input: ${field.replace('.', '\\.')}: must be the name of an environment`));
    expect(line).toMatch(/at most 64 characters.*not shown.*pass the name of the variable/);
    expect(line).not.toContain('SECRET');
  });
});

describe('isEnvName', () => {
  test.each([
    ['PROXMOX_VE_API_TOKEN', true],
    ['_x1', true],
    [`A${'_'.repeat(63)}`, true],
    [`A${'_'.repeat(64)}`, false],
    ['1ABC', false],
    ['A-B', false],
    ['', false],
  ])('%s is a name: %s', (value, expected) => {
    expect(isEnvName(value)).toBe(expected);
  });
});
