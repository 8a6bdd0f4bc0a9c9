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

/** What a destroy hook runs: the sh hook (once per stack), the domain's bundle and the domain's name. */
export interface HookHandler {
  readonly script: string;
  readonly bundle: string;
  readonly domain: string;
}

/**
 * The destroy hook of `domain`'s objects whose bundle is at `bundle` (the asset's path): the sh script
 * handlers/destroy-hook.sh hands each object to the domain's running leader, a Node start only for the
 * first (src/core/destroy-relay/fifo-lead.ts).
 */
export const hookHandler = (scope: Construct, domain: string, bundle: string): HookHandler => {
  const stack = TerraformStack.of(scope);
  const id = 'homelab-destroy-hook';
  const existing = stack.node.tryFindChild(id);
  const script =
    existing instanceof TerraformAsset
      ? existing
      : new TerraformAsset(stack, id, { path: builtFile('destroy-hook.sh'), type: AssetType.FILE });
  return { script: script.path, bundle, domain };
};

/** Absolute path of a built bundle; fails at synth, naming the fix, when it was never built. */
const bundlePath = (domain: string): string => {
  if (!Object.hasOwn(DOMAINS, domain)) {
    throw new Error(
      `handler domain "${domain}" is not built in (${Object.keys(DOMAINS).join(', ')}): pass the path of your bundle`,
    );
  }
  return builtFile(`${domain}.js`);
};

/** Absolute path of a file `npm run bundle` puts in build/handlers; fails at synth, naming the fix, without it. */
const builtFile = (name: string): string => {
  const path = join(packageRoot(), 'build', 'handlers', name);
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
