// Terraform toolchain for tests that run real terraform/tofu: the environment written by
// scripts/setup-terraform.sh, so `terraform init` installs hashicorp/external from the offline mirror
// instead of failing on an unreachable registry, and a missing setup fails with the command to run.
// CDKTF_HOMELAB_TERRAFORM=tofu, terraform or terraform-1.15 picks the binary; env.sh honours it.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

interface Toolchain {
  readonly vars: NodeJS.ProcessEnv;
  readonly binary: string;
}

let loaded: Toolchain | undefined;

// Same default as the script: ${CDKTF_HOMELAB_CACHE:-/var/cache/cdktf-homelab}/terraform.
const toolchainDir = (): string => join(process.env.CDKTF_HOMELAB_CACHE || '/var/cache/cdktf-homelab', 'terraform');

function load(): Toolchain {
  const dir = toolchainDir();
  const envFile = join(dir, 'env.sh');
  const missing = [envFile, join(dir, 'cli.tfrc')].filter((file) => !existsSync(file));
  if (missing.length > 0) {
    throw new Error(
      `terraform toolchain not set up (missing ${missing.join(', ')}): run \`bash scripts/setup-terraform.sh\``,
    );
  }
  // bash evaluates env.sh (it may prepend tofu's folder to PATH) and prints only what the tests need.
  const script =
    'source "$1" && printf "%s\\0" "$TF_CLI_CONFIG_FILE" "${TERRAFORM_BINARY_NAME:-}" "$PATH" ' +
    '"$(command -v "${TERRAFORM_BINARY_NAME:-terraform}")"';
  const [cliConfig, binaryName, path, binary] = execFileSync('bash', ['-c', script, 'env.sh', envFile], {
    encoding: 'utf8',
  }).split('\0');
  if (!binary) {
    throw new Error(`${binaryName || 'terraform'} not found on PATH: run \`bash scripts/setup-terraform.sh\``);
  }
  // An env.sh written by an older setup script ignores the choice: the suite would pass on the wrong binary.
  const wanted = process.env.CDKTF_HOMELAB_TERRAFORM;
  if (wanted && !isChosen(binary, wanted)) {
    throw new Error(
      `CDKTF_HOMELAB_TERRAFORM=${wanted} but ${envFile} chose ${binary}: run \`bash scripts/setup-terraform.sh\``,
    );
  }
  const vars: NodeJS.ProcessEnv = { TF_CLI_CONFIG_FILE: cliConfig, PATH: path };
  if (binaryName) vars.TERRAFORM_BINARY_NAME = binaryName;
  return { vars, binary };
}

/**
 * Whether `binary` is the one CDKTF_HOMELAB_TERRAFORM names: `terraform-1.15` is the build the setup script caches
 * as terraform-1.15.<patch>/bin/terraform (its file is named terraform, like the machine's 1.11.4).
 */
export function isChosen(binary: string, wanted: string): boolean {
  const versioned = /^terraform-\d+\.\d+$/.test(wanted);
  if (!versioned) return basename(binary) === wanted;
  return basename(binary) === 'terraform' && basename(dirname(dirname(binary))).startsWith(`${wanted}.`);
}

/** process.env plus TF_CLI_CONFIG_FILE (and TERRAFORM_BINARY_NAME, PATH for tofu) from the setup script. */
export function terraformEnv(): NodeJS.ProcessEnv {
  loaded ??= load();
  return { ...process.env, ...loaded.vars };
}

/**
 * terraformEnv() for terraform, the handlers it starts and the app a CdktfProject runs, without the machine's
 * NODE_EXTRA_CA_CERTS: they trust each test server by the CA the test gives them, and Node 20 parses the whole extra
 * bundle at every start (measured: 0.09 CPU-s a process; 18 of the ~100 CPU-s of 200 units' destroy outside the host).
 */
export function testProcessEnv(): NodeJS.ProcessEnv {
  const { NODE_EXTRA_CA_CERTS: _unused, ...env } = terraformEnv();
  return env;
}

/** Absolute path of the terraform (or tofu) binary the setup script chose. */
export function terraformBinary(): string {
  loaded ??= load();
  return loaded.binary;
}

/** The binary's name for logs: terraform-1.15.9 for the cached 1.15 build, else its file name (terraform, tofu). */
export function terraformLabel(): string {
  const binary = terraformBinary();
  const folder = basename(dirname(dirname(binary)));
  return /^terraform-\d/.test(folder) ? folder : basename(binary);
}
