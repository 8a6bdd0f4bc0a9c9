/**
 * Ships a domain's handler bundle into the stack as a TerraformAsset, once per stack, so the
 * synthesized folder runs on any machine with Node 20 and never points back into node_modules.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AssetType, TerraformAsset, TerraformStack } from 'cdktf';
import type { Construct } from 'constructs';

/** The handler bundles built by `npm run bundle`, one per domain. */
export type HandlerDomain = 'pve' | 'linux';

/** The stack's single asset for `domain`, created on first use. */
export const handlerAsset = (scope: Construct, domain: HandlerDomain): TerraformAsset => {
  const stack = TerraformStack.of(scope);
  const id = `homelab-handler-${domain}`;
  const existing = stack.node.tryFindChild(id);
  if (existing instanceof TerraformAsset) return existing;
  return new TerraformAsset(stack, id, { path: bundlePath(domain), type: AssetType.FILE });
};

/** Absolute path of a built bundle; fails at synth, naming the fix, when it was never built. */
const bundlePath = (domain: HandlerDomain): string => {
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
