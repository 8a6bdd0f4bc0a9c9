/**
 * The one module through which the constructs reach the CDK core library: the `cdktf` or `cdktn` of the user's
 * project, resolved when this package loads, so every construct extends the same copy as the user's App. Another
 * copy fails at synth with "_resetResolveDiscoveredProviderFeatureUsage is not a function".
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type * as Cdktf from 'cdktf';
import { CORE_ENV, CORE_NAMES, type CoreCandidate, type CoreName, pickCore } from './pick-core';

const USED = [
  'Aspects',
  'AssetType',
  'dependable',
  'Fn',
  'Lazy',
  'TerraformAsset',
  'TerraformDataSource',
  'TerraformElement',
  'TerraformProvider',
  'TerraformResource',
  'TerraformStack',
  'Token',
] as const;
/** The members the constructs use, and all this module gives them. */
type Core = Pick<typeof Cdktf, (typeof USED)[number]>;

// Where the user's project is: the app's entry (CommonJS, tsx), the script node ran (ESM), the working directory
// (cdktf-cli and cdktn-cli run the app there), then this package (a plain install resolves its peers from here).
const resolutionBases = (): string[] =>
  [require.main?.filename, process.argv[1], join(process.cwd(), 'package.json'), __filename].filter(
    (base): base is string => typeof base === 'string' && base !== '',
  );

const resolveFrom = (base: string, name: CoreName): string | undefined => {
  try {
    return createRequire(base).resolve(name);
  } catch {
    return undefined; // not installed as seen from this base: the next base may see it
  }
};

/** Every core library reachable from the bases, and whether the app has already loaded that copy. */
const findCandidates = (bases: readonly string[]): CoreCandidate[] =>
  CORE_NAMES.flatMap((name) => {
    const path = bases.map((base) => resolveFrom(base, name)).find((found) => found !== undefined);
    return path === undefined ? [] : [{ name, path, loaded: require.cache[path] !== undefined }];
  });

/** Whether the library has every member the constructs use. */
const hasEvery = (core: Partial<Core>): core is Core => USED.every((member) => core[member] !== undefined);

const loadCore = (): Core => {
  const chosen = pickCore(findCandidates(resolutionBases()), process.env[CORE_ENV]);
  const core: Partial<Core> = createRequire(chosen.path)(chosen.path);
  const missing = USED.filter((member) => core[member] === undefined);
  if (!hasEvery(core)) {
    throw new Error(
      `cdktf-homelab: ${chosen.name} at ${chosen.path} has no ${missing.join(', ')}: use cdktf 0.21 or cdktn 0.24`,
    );
  }
  return core;
};

export const {
  Aspects,
  AssetType,
  dependable,
  Fn,
  Lazy,
  TerraformAsset,
  TerraformDataSource,
  TerraformElement,
  TerraformProvider,
  TerraformResource,
  TerraformStack,
  Token,
} = loadCore();
export type AssetType = Cdktf.AssetType;
export type TerraformAsset = Cdktf.TerraformAsset;
export type TerraformStack = Cdktf.TerraformStack;
export type TerraformResource = Cdktf.TerraformResource;
export type { ITerraformDependable } from 'cdktf';
