/**
 * Issue 16 item 14: a secret typed where an environment variable NAME belongs failed synth with the
 * whole secret in the error, and one made only of letters and digits was written to cdk.tf.json.
 * Every `...Env` prop of every construct refuses such a value without showing it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Testing, TerraformStack } from 'cdktf';
import { SshHost } from '../../../../constructs/linux/ssh-host';
import { ProxmoxCluster } from '../../../../constructs/pve/cluster';
import { ProxmoxMetricServer } from '../../../../constructs/pve/metric-server';

const ROOT = join(__dirname, '..', '..', '..', '..');

/** Builds a stack with `value` in one `...Env` prop of one construct. */
type Build = (stack: TerraformStack, value: string) => void;

const cluster = (stack: TerraformStack, tokenEnv?: string) =>
  new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'], ...(tokenEnv === undefined ? {} : { tokenEnv }) });
const metric = (stack: TerraformStack, props: object) =>
  new ProxmoxMetricServer(stack, 'm', {
    cluster: cluster(stack),
    id: 'm1',
    type: 'influxdb',
    server: '10.0.0.5',
    port: 8089,
    ...props,
  });

/** Every `...Env` prop, by the props type that has it: the guard below keeps this list whole. */
const ENV_PROPS: ReadonlyArray<readonly [props: string, prop: string, build: Build]> = [
  ['ProxmoxClusterProps', 'tokenEnv', (stack, value) => cluster(stack, value)],
  [
    'ProxmoxClusterProps',
    'readTokenEnv',
    (stack, value) => new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'], readTokenEnv: value }),
  ],
  ['ProxmoxMetricServerProps', 'tokenEnv', (stack, value) => metric(stack, { tokenEnv: value })],
  [
    'ProxmoxMetricServerProps',
    'otelHeadersEnv',
    (stack, value) => metric(stack, { type: 'opentelemetry', port: 4318, otelHeadersEnv: value }),
  ],
  [
    'SshHostProps',
    'privateKeyEnv',
    (stack, value) =>
      new SshHost(stack, 'n2', { host: '10.0.0.2', insecureAcceptAnyHostKey: true, privateKeyEnv: value }),
  ],
  [
    'SshHostProps',
    'readPrivateKeyEnv',
    (stack, value) =>
      new SshHost(stack, 'n2', { host: '10.0.0.2', insecureAcceptAnyHostKey: true, readPrivateKeyEnv: value }),
  ],
];

const PVE_TOKEN = 'root@pam!tf=4c1d2a8e-6f3b-4e1a-9d27-SECRETSECRET';
const KEY_TEXT =
  '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUSECRET\n-----END OPENSSH PRIVATE KEY-----\n';
/** Letters and digits only: it passed as a name and went into cdk.tf.json. */
const ALNUM_SECRET = 'ghp0SECRET' + '7Qx2Lm9Zr4'.repeat(6);

const synthError = (build: Build, value: string): string => {
  const stack = new TerraformStack(Testing.app(), 'test');
  try {
    build(stack, value);
    Testing.synth(stack);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('synth passed');
};

describe.each(ENV_PROPS)('%s %s', (_, prop, build) => {
  test.each([
    ['a PVE API token', PVE_TOKEN],
    ["a private key's text", KEY_TEXT],
    ['a secret of letters and digits longer than 64 characters', ALNUM_SECRET],
  ])('refuses %s without showing it and says to pass the name', (__, secret) => {
    const message = synthError(build, secret);
    expect(message).toMatch(new RegExp(`${prop} must be the name of an environment variable .*at most 64 characters`));
    expect(message).toMatch(/not shown.*pass the name of the variable that holds the secret/);
    expect(message).not.toContain('SECRET');
  });

  test('takes a name of 64 characters', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    expect(() => build(stack, `A${'_'.repeat(62)}Z`)).not.toThrow();
  });
});

test('a token typed into tokenEnv of a server type without a token is refused without showing it', () => {
  const message = synthError(
    (stack, value) => metric(stack, { type: 'graphite', port: 2003, tokenEnv: value }),
    PVE_TOKEN,
  );
  expect(message).toMatch(
    /tokenEnv must be left unset for a graphite server .*got a value of \d+ characters \(not shown/,
  );
  expect(message).not.toContain('SECRET');
});

test('the table above names every ...Env prop the constructs declare', () => {
  // API.md lists every prop of every construct, whether its interface writes it or a kind's declaration does.
  const api = readFileSync(join(ROOT, 'API.md'), 'utf8');
  const declared = api.split('\n## ').flatMap((section) => {
    const props = /^(\w+Props)\n/.exec(section)?.[1];
    return props === undefined ? [] : [...section.matchAll(/^\| `(\w+Env)` \|/gm)].map((m) => `${props} ${m[1]}`);
  });
  expect(declared.sort()).toEqual(ENV_PROPS.map(([props, prop]) => `${props} ${prop}`).sort());
});
