/**
 * Which CDK core library the constructs extend: HashiCorp's `cdktf` or its fork `cdktn`. Picking one the user's
 * App does not run on fails at synth with errors that never name the cause, so the choice is made here, once.
 */

export const CORE_ENV = 'CDKTF_HOMELAB_CORE';
export const CORE_NAMES = ['cdktf', 'cdktn'] as const;
export type CoreName = (typeof CORE_NAMES)[number];

/** A core library found from the user's project: its resolved entry file, and whether the app already loaded it. */
export interface CoreCandidate {
  readonly name: CoreName;
  readonly path: string;
  readonly loaded: boolean;
}

const INSTALL = 'npm install cdktf@0.21.0 constructs@10 (or, for CDK Terrain, cdktn@0.24.0 constructs@10.7)';

/**
 * The override when set; else the one library the app has loaded; else the one installed. Two of them
 * (loaded, or installed and neither loaded yet) is ambiguous and fails naming the override.
 */
export const pickCore = (candidates: readonly CoreCandidate[], override: string | undefined): CoreCandidate => {
  if (override) {
    const chosen = candidates.find((candidate) => candidate.name === override);
    if (chosen !== undefined) return chosen;
    if (!CORE_NAMES.some((name) => name === override)) {
      throw new Error(`cdktf-homelab: ${CORE_ENV} must be cdktf or cdktn, got "${override}"`);
    }
    throw new Error(
      `cdktf-homelab: ${CORE_ENV}=${override} but ${override} is not installed in this project: ${INSTALL}`,
    );
  }
  const loaded = candidates.filter((candidate) => candidate.loaded);
  const pool = loaded.length > 0 ? loaded : candidates;
  const [only, ...others] = pool;
  if (only !== undefined && others.length === 0) return only;
  if (only === undefined) throw new Error(`cdktf-homelab needs cdktf or cdktn in this project: ${INSTALL}`);
  const found = pool.map((candidate) => `${candidate.name} (${candidate.path})`).join(' and ');
  const state = loaded.length > 0 ? 'loaded' : 'installed and neither is loaded yet';
  throw new Error(`cdktf-homelab: ${found} are both ${state}: set ${CORE_ENV}=cdktf or ${CORE_ENV}=cdktn`);
};
