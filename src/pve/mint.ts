/**
 * PVE API tokens minted per handler run (ProxmoxCluster `mint`): the run's bootstrap token (the
 * role's token variable) creates a token with an expiry for the role's user, the run makes every
 * request with it (the poll of a task it started included, since PVE shows a task to its owner
 * alone), and the token is removed when the run ends, success or failure; the expiry bounds what a
 * run killed before that leaves usable. One run is one lease. PVE's rules: README, Least privilege.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../core/clock';
import { HandlerError } from '../core/errors';
import type { Log, Role } from '../core/kind';
import type { PveApi, PveConnect } from './api';
import { MINT_EXPIRE, type MintSettings } from './mint-settings';
import type { PveTarget } from './target';

/** The variable name a run's client reads its minted token from; it exists only inside the run. */
const MINTED = 'HOMELAB_MINTED_TOKEN';

interface Created {
  readonly value: string;
  readonly 'full-tokenid': string;
}

/**
 * A session of the role's own minted token: created with `bootstrap` before the first request,
 * removed with it on close (a failed removal is logged; the expiry ends the token anyway).
 */
export const mintedSession = async (
  target: PveTarget & { readonly mint: MintSettings },
  role: Role,
  bootstrap: PveApi,
  connect: PveConnect,
  clock: Clock,
  log: Log,
): Promise<PveApi> => {
  const { mint, ...plain } = target;
  const user = role === 'read' ? (mint.readUser ?? mint.provisionUser) : mint.provisionUser;
  const tokenid = `homelab-${role}-${randomBytes(6).toString('hex')}`;
  const path = `access/users/${encodeURIComponent(user)}/token/${tokenid}`;
  const expire = Math.floor(clock.now() / 1000) + (mint.expireSeconds ?? MINT_EXPIRE.default);
  let created: Created;
  try {
    created = await bootstrap.call<Created>('POST', path, { expire, privsep: false, comment: 'cdktf-homelab run' });
  } catch (error) {
    await bootstrap.close();
    throw new HandlerError('PVE token not minted', `the token in ${target.tokenEnv} could not create one for ${user}`, {
      Cause: error instanceof Error ? error.message : String(error),
    });
  }
  // A 401 or 403 names the variable the user set and the user whose rights the token has, never MINTED.
  const tokenName =
    `the token minted for this run from the token in ${target.tokenEnv} ` +
    `(a token of ${user}, expiring ${mint.expireSeconds ?? MINT_EXPIRE.default} s after the run began)`;
  const secret = `${created['full-tokenid']}=${created.value}`;
  const api = connect({ ...plain, tokenEnv: MINTED }, { [MINTED]: secret }, tokenName);
  return {
    call: api.call.bind(api),
    envelope: api.envelope.bind(api),
    tokenName,
    close: async () => {
      try {
        await api.close();
        await bootstrap.call('DELETE', path);
      } catch (error) {
        log(`the minted token ${created['full-tokenid']} was not removed (it expires by itself): ${String(error)}`);
      } finally {
        await bootstrap.close();
      }
    },
  };
};
