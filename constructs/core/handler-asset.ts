/**
 * Ships a domain's handler bundle into the stack as a TerraformAsset, once per stack, so the
 * synthesized folder runs on any machine with Node and never points back into node_modules.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Construct } from 'constructs';
import { DOMAINS } from '../../src/core/registry';
import { AssetType, TerraformAsset, TerraformStack } from './cdk';

/** The stack's single asset for `domain`, created on first use; `bundle` for a domain of your own. */
export const handlerAsset = (scope: Construct, domain: string, bundle?: string): TerraformAsset => {
  const stack = TerraformStack.of(scope);
  const id = `homelab-handler-${domain}`;
  const existing = stack.node.tryFindChild(id);
  if (existing instanceof TerraformAsset) return existing;
  return new TerraformAsset(stack, id, { path: bundle ?? bundlePath(domain), type: AssetType.FILE });
};

/** Absolute path of a built bundle; fails at synth, naming the fix, when it was never built. */
const bundlePath = (domain: string): string => {
  if (!Object.hasOwn(DOMAINS, domain)) {
    throw new Error(
      `handler domain "${domain}" is not built in (${Object.keys(DOMAINS).join(', ')}): pass the path of your bundle`,
    );
  }
  const path = join(packageRoot(), 'build', 'handlers', `${domain}.js`);
  if (!existsSync(path)) {
    throw new Error(`handler bundle ${path} is missing: run \`npm run bundle\` in ${packageRoot()}`);
  }
  return path;
};

let root: string | undefined;

/** The cdktf-homelab package root, from source (ts) or from the compiled dist/ alike. */
const packageRoot = (): string => {
  if (root !== undefined) return root;
  for (let dir = __dirname; dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === 'cdktf-homelab') {
      root = dir;
      return dir;
    }
  }
  throw new Error(`cannot find the cdktf-homelab package root above ${__dirname}`);
};
