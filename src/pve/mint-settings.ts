/**
 * What ProxmoxCluster `mint` says, and its rule, apart from the minting (mint.ts): the target's
 * definition checks the setting at synth and in the handler, and minting reads it, so neither file
 * imports the other.
 */
import type { Rule } from '../core/rules';
import { isRecord } from '../core/records';

/** ProxmoxCluster `mint`: whose token a run mints, per role, and how long it lives. */
export interface MintSettings {
  /** The user whose token an apply, a destroy and the task polls they start use: `user@realm`. */
  readonly provisionUser: string;
  /** The user whose token a plan uses. @default - provisionUser */
  readonly readUser?: string;
  /** How long a minted token lives; a run that outlives it fails with 401. @default 900 */
  readonly expireSeconds?: number;
}

export const MINT_EXPIRE = { min: 60, max: 86_400, default: 900 } as const;

// PVE's userid: user_regex [^\s:/]+, '@', realm_regex [A-Za-z][A-Za-z0-9.\-_]+ (Auth/Plugin.pm).
const USERID = /^[^\s:/@!]+@[A-Za-z][A-Za-z0-9.\-_]+$/;

/** The rule of `mint`: the two users as PVE user ids, the expiry within bounds, nothing else. */
export const mintRule: Rule = (value) => {
  const rule =
    `{ provisionUser, readUser?, expireSeconds? } with user ids such as cdktf-apply@pve and ` +
    `expireSeconds from ${MINT_EXPIRE.min} to ${MINT_EXPIRE.max}`;
  if (!isRecord(value)) return rule;
  const { provisionUser, readUser, expireSeconds, ...rest } = value;
  const user = (id: unknown) => typeof id === 'string' && USERID.test(id);
  const expire =
    expireSeconds === undefined ||
    (Number.isInteger(expireSeconds) &&
      Number(expireSeconds) >= MINT_EXPIRE.min &&
      Number(expireSeconds) <= MINT_EXPIRE.max);
  const ok =
    Object.keys(rest).length === 0 && user(provisionUser) && (readUser === undefined || user(readUser)) && expire;
  return ok ? undefined : rule;
};
