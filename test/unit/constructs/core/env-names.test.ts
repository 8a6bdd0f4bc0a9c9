/**
 * Issue 16 item 14: a secret typed where an environment variable NAME belongs failed synth with the
 * whole secret in the error, and one made only of letters and digits was written to cdk.tf.json.
 * Every `...Env` prop of every construct refuses such a value without showing it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Testing, TerraformStack } from 'cdktf';
import { SshHost } from '../../../../constructs/linux/ssh-host';
import { ProxmoxCluster } from '../../../../constructs/pve/cluster';
import { ProxmoxMetricServer } from '../../../../constructs/pve/metric-server';

const CONSTRUCTS = join(__dirname, '..', '..', '..', '..', 'constructs');

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

/** Every `...Env` prop, by the file that declares it: the guard below keeps this list whole. */
const ENV_PROPS: ReadonlyArray<readonly [file: string, prop: string, build: Build]> = [
  ['pve/cluster.ts', 'tokenEnv', (stack, value) => cluster(stack, value)],
  [
    'pve/cluster.ts',
    'readTokenEnv',
    (stack, value) => new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'], readTokenEnv: value }),
  ],
  ['pve/metric-server.ts', 'tokenEnv', (stack, value) => metric(stack, { tokenEnv: value })],
  [
    'pve/metric-server.ts',
    'otelHeadersEnv',
    (stack, value) => metric(stack, { type: 'opentelemetry', port: 4318, otelHeadersEnv: value }),
  ],
  [
    'linux/ssh-host.ts',
    'privateKeyEnv',
    (stack, value) =>
      new SshHost(stack, 'n2', { host: '10.0.0.2', insecureAcceptAnyHostKey: true, privateKeyEnv: value }),
  ],
  [
    'linux/ssh-host.ts',
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
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? files(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
    );
  const declared = files(CONSTRUCTS).flatMap((path) =>
    [...readFileSync(path, 'utf8').matchAll(/readonly (\w+Env)\??:/g)].map(
      (m) => `${relative(CONSTRUCTS, path)} ${m[1]}`,
    ),
  );
  expect(declared.sort()).toEqual(ENV_PROPS.map(([file, prop]) => `${file} ${prop}`).sort());
});
