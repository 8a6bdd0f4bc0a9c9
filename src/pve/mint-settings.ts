/**
 * What ProxmoxCluster `mint` says, declared once (its fields, each with its rule), apart from the minting
 * (mint.ts): the target's declaration judges the setting at synth and in the handler, naming each broken field at
 * its path (`mint.expireSeconds`), and minting reads it, so neither file imports the other.
 */
import { optional, required, type ValuesOf } from '../core/fields';
import type { NestedRule } from '../core/definition';
import { recordOf } from '../core/nested-fields';
import { integer, text } from '../core/rules';

export const MINT_EXPIRE = { min: 60, max: 86_400, default: 900 } as const;

// PVE's userid: user_regex [^\s:/]+, '@', realm_regex [A-Za-z][A-Za-z0-9.\-_]+ (Auth/Plugin.pm).
const userId = text('a PVE user id such as cdktf-apply@pve', /^[^\s:/@!]+@[A-Za-z][A-Za-z0-9.\-_]+$/);

export const MINT_FIELDS = {
  /** The user whose token an apply, a destroy and the task polls they start use: `user@realm`. */
  provisionUser: required({ rule: userId }),
  /** The user whose token a plan uses. @default - provisionUser */
  readUser: optional({ rule: userId }),
  /** How long a minted token lives; a run that outlives it fails with 401. */
  // Left unset in the target: mint.ts applies the default, as it did before this declaration.
  expireSeconds: optional({ rule: integer(MINT_EXPIRE.min, MINT_EXPIRE.max), default: MINT_EXPIRE.default }),
};

/** ProxmoxCluster `mint`: whose token a run mints, per role, and how long it lives. */
export interface MintSettings extends ValuesOf<typeof MINT_FIELDS> {}

/** The rule of `mint`: each field by its rule, nothing else. */
export const mintRule: NestedRule<MintSettings> = recordOf(MINT_FIELDS, 'mint');
