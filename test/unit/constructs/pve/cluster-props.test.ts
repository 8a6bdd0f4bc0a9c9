/**
 * Every prop of ProxmoxCluster judged as a plain-JavaScript app passes it: a wrong type, a missing
 * required prop and a misspelling each get one message naming the construct, the prop and the rule
 * (never a TypeError), every broken rule is reported at once, the target carries the default token
 * variable, and the handler boundary refuses what synth refuses when the value was only known at apply.
 */
import { Testing, TerraformStack, TerraformVariable } from 'cdktf';
import { ProxmoxCluster } from '../../../../constructs/pve/cluster';
import { parseAs } from '../../../../src/core/parse';
import { pveTargetSchema } from '../../../../src/pve/target';
import { synthError as failure, written } from '../synth-error';

const VALID = { endpoints: ['https://n1:8006'] };

/** The synth error of a cluster with `props` over the valid ones. */
const synthError = (props: Record<string, unknown>): string =>
  failure((stack) => new ProxmoxCluster(stack, 'pve', written({ ...VALID, ...props }) as never));

describe('ProxmoxCluster props from plain JavaScript', () => {
  test.each([
    ['endpoints', 'https://n1:8006', 'endpoints must be a non-empty list, got "https://n1:8006"'],
    [
      'tokenEnv',
      7,
      'tokenEnv must be the name of an environment variable (letters, digits and _, at most 64 characters), ' +
        'got number; pass the name of the variable that holds the secret, not the secret',
    ],
    ['caFile', ['/ca.pem'], 'caFile must be the path of a PEM file, got ["/ca.pem"]'],
    ['caFile', '', 'caFile must be the path of a PEM file, got ""'],
    ['fingerprints', 'AA:BB', 'fingerprints must be an object of string values, got "AA:BB"'],
    ['insecure', 'yes', 'insecure must be a boolean, got "yes"'],
    ['timeoutSeconds', '30', 'timeoutSeconds must be an integer from 1 to 3600, got "30"'],
  ])('%s: a wrong type names the prop and the rule', (prop, value, says) => {
    expect(synthError({ [prop]: value })).toBe(`test/pve: ${says}`);
  });

  test('endpoints: a missing required prop is refused at synth, not when a handler runs', () => {
    expect(synthError({ endpoints: undefined })).toBe('test/pve: endpoints is required: a non-empty list');
  });

  test('a misspelled prop is refused with the closest name', () => {
    expect(synthError({ fingerprint: {} })).toBe(
      'test/pve: fingerprint is not a prop of ProxmoxCluster; did you mean fingerprints?',
    );
  });

  test('a password typed into an endpoint is never echoed', () => {
    expect(synthError({ endpoints: ['https://root:hunter2@n1:8006'] })).toBe(
      'test/pve: endpoints must be URLs without user, password, query or fragment, ' +
        'got ["https://<credentials>@n1:8006"]',
    );
  });

  test('every broken rule is reported at once', () => {
    expect(synthError({ timeoutSeconds: 0, caFile: '/ca.pem', insecure: true })).toBe(
      '2 problems in 1 construct:\ntest/pve: timeoutSeconds must be an integer from 1 to 3600, got 0\n' +
        'test/pve: insecure must be left unset when caFile or fingerprints is given, got true',
    );
  });

  test('all defaults: the target names the default token variable and nothing else', () => {
    const cluster = new ProxmoxCluster(new TerraformStack(Testing.app(), 'test'), 'pve', VALID);
    expect(cluster.target).toEqual({ endpoints: ['https://n1:8006'], tokenEnv: 'PROXMOX_VE_API_TOKEN' });
  });

  test('a value known only at apply passes synth and is refused by the same rule at the handler', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const timeout = new TerraformVariable(stack, 'timeout', { type: 'number' });
    new ProxmoxCluster(stack, 'pve', { ...VALID, timeoutSeconds: timeout.numberValue });
    expect(() => Testing.synth(stack)).not.toThrow();
    const target = { ...VALID, tokenEnv: 'PROXMOX_VE_API_TOKEN', timeoutSeconds: 0 };
    expect(() => parseAs(pveTargetSchema, target, 'target')).toThrow(
      'Bad input: target.timeoutSeconds: must be an integer from 1 to 3600, got 0',
    );
  });

  test('the handler refuses every broken rule of a hand-written target at once', () => {
    const target = { endpoints: ['n1:8006'], tokenEnv: 'T', fingerprints: { 'https://x:8006': 'AA' } };
    expect(() => parseAs(pveTargetSchema, target, 'target')).toThrow(
      'Bad input: target.endpoints: must be http(s) URLs such as https://n1:8006, got ["n1:8006"]; ' +
        'target.fingerprints: must be keyed by one of the endpoints, got "https://x:8006"; ' +
        'target.fingerprints["https://x:8006"]: must be a SHA-256 fingerprint (32 hex bytes, colons optional), ' +
        'got "AA"',
    );
  });
});
