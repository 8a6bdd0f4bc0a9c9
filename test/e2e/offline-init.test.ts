/**
 * Troubleshooting's offline `terraform init`, run as a user meets it: with no way out (HTTPS through a proxy that
 * refuses, so the result is the same on a machine that has the internet) init fails with the message the README
 * quotes, and with the provider mirror that the cache's env.sh names in TF_CLI_CONFIG_FILE it succeeds. Guards
 * against a README that quotes an error Terraform or OpenTofu no longer prints, or a mirror that stopped working.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from '../support/cdktf-project';
import { terraformBinary, terraformEnv } from '../support/toolchain';

jest.setTimeout(120_000);

const README = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');
const TROUBLESHOOTING = /^## Troubleshooting\n([\s\S]*?)^## /m.exec(README)?.[1] ?? '';
/** What the stacks need from a registry: the batch read's data source. */
const CONFIG = { terraform: { required_providers: { external: { source: 'hashicorp/external', version: '2.3.5' } } } };
const OFFLINE = { HTTPS_PROXY: 'http://127.0.0.1:1', https_proxy: 'http://127.0.0.1:1', CHECKPOINT_DISABLE: '1' };

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'offline-init-'));
  writeFileSync(join(dir, 'main.tf.json'), JSON.stringify(CONFIG));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const init = (env: NodeJS.ProcessEnv) => runCommand(terraformBinary(), ['init', '-no-color', '-input=false'], dir, env);

test('offline and without the mirror, init fails with the message Troubleshooting quotes', async () => {
  const { TF_CLI_CONFIG_FILE: _mirror, ...withoutMirror } = terraformEnv();
  const outcome = await init({ ...withoutMirror, ...OFFLINE });
  expect(outcome.code).toBe(1);
  const headline = /Failed to (query available|resolve) provider packages/.exec(outcome.stderr)?.[0];
  expect(headline).toBeDefined();
  expect(TROUBLESHOOTING).toContain(`\`${headline}\``);
});

test('offline with the mirror env.sh names, init succeeds', async () => {
  expect(terraformEnv().TF_CLI_CONFIG_FILE).toBeDefined();
  const outcome = await init({ ...terraformEnv(), ...OFFLINE });
  expect({ code: outcome.code, stderr: outcome.stderr }).toEqual({ code: 0, stderr: '' });
});
