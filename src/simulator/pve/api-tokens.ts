// API tokens created and removed over the API, with PVE's rules, so a handler that mints a token
// per run meets them: a token is never `self` for its user (the caller's id is `user@realm!id`), so
// only one holding User.Modify may create or remove a user's token: on /access/groups it may for
// every user, root@pam included; on /access/groups/<group> only for that group's members; a new
// token is privilege-separated unless `privsep=0`, and a separated one starts with no ACL of its
// own, so it may do nothing; `privsep=0` gives it its user's rights; an expired
// token authenticates no more; create answers `{info, value, full-tokenid}` and the value is a UUID.
// Source: proxmox/pve-access-control 5ccd07d, src/PVE/API2/User.pm generate_token and remove_token,
// src/PVE/RPCEnvironment.pm exec_api2_perm_check (userid-param self, userid-group: check_any on
// /access/groups, else filter_groups and group_member_join), check_user_exist and permissions,
// src/PVE/AccessControl.pm verify_token and check_token_exist, src/PVE/TokenConfig.pm generate_token.
import { randomUUID } from 'node:crypto';
import { expired, type TokenGrant } from './auth';
import { PveError, paramError } from './envelope';
import type { ObjectSchema } from './validate';

/** A user's own rights, which a token made with `privsep=0` gets, and the groups the user is in. */
export type UserGrant = Omit<TokenGrant, 'secret' | 'expire'> & { readonly groups?: readonly string[] };

/** The tokens the fake authenticates, changed by create and remove, and the users they belong to. */
export class ApiTokens {
  constructor(
    readonly tokens: Record<string, TokenGrant>,
    private readonly users: Readonly<Record<string, UserGrant>>,
  ) {}

  /** generate_token: the user must exist, the token must not. */
  create(userid: string, tokenid: string, expire: number | undefined, privsep: boolean): unknown {
    const user = Object.hasOwn(this.users, userid) ? this.users[userid] : undefined;
    if (user === undefined) throw new PveError(500, `no such user ('${userid}')\n`);
    const full = `${userid}!${tokenid}`;
    if (Object.hasOwn(this.tokens, full)) throw paramError({ tokenid: 'Token already exists.' });
    const value = randomUUID();
    const { groups: _groups, ...own } = user;
    const rights: Omit<TokenGrant, 'secret'> = privsep ? { privileges: 'none', sdnAudit: false } : own;
    this.tokens[full] = { ...rights, secret: value, ...(expire ? { expire } : {}) };
    return {
      info: { privsep: privsep ? 1 : 0, ...(expire === undefined ? {} : { expire }) },
      value,
      'full-tokenid': full,
    };
  }

  /** remove_token: `no such token` when it is not there. */
  remove(userid: string, tokenid: string): null {
    const full = `${userid}!${tokenid}`;
    if (!Object.hasOwn(this.tokens, full)) throw new PveError(500, `no such token '${tokenid}' for user '${userid}'\n`);
    delete this.tokens[full];
    return null;
  }

  /**
   * `['or', ['userid-param', 'self'], ['userid-group', ['User.Modify']]]` for a token caller: both
   * branches fail for a user that does not exist, and a token is never `self`; User.Modify on
   * /access/groups passes for every user, else the user must be in a group the caller holds it on.
   */
  checkAdmin(userModify: boolean | readonly string[], values: Record<string, unknown>): void {
    if (!TOKEN_ID.test(String(values.tokenid))) throw paramError({ tokenid: 'value does not match the regex pattern' });
    const userid = String(values.userid);
    const user = Object.hasOwn(this.users, userid) ? this.users[userid] : undefined;
    if (user === undefined) throw new PveError(403, 'Permission check failed\n');
    if (userModify === true) return;
    const groups = Array.isArray(userModify) ? userModify : [];
    if ((user.groups ?? []).some((group) => groups.includes(group))) return;
    throw new PveError(403, 'Permission check failed\n');
  }

  /** The ids of the tokens there are now, expired ones included (PVE keeps them until removed). */
  ids(): string[] {
    return Object.keys(this.tokens).sort();
  }

  /** The ids of the tokens that still authenticate at `nowSeconds`. */
  live(nowSeconds: number): string[] {
    const live = Object.entries(this.tokens).filter(([, grant]) => !expired(grant, nowSeconds));
    return live.map(([id]) => id).sort();
  }
}

// token-subid is realm_regex, [A-Za-z][A-Za-z0-9.\-_]+; the fake checks it in the route.
const TOKEN_ID = /^[A-Za-z][A-Za-z0-9.\-_]+$/;

/** The token's path parameters, which DELETE takes alone. */
export const TOKEN_ID_SCHEMA = { userid: { type: 'string' }, tokenid: { type: 'string' } } satisfies ObjectSchema;

/** POST: the path parameters and the new token's own. */
export const TOKEN_SCHEMA: ObjectSchema = {
  ...TOKEN_ID_SCHEMA,
  expire: { type: 'integer', optional: true, minimum: 0 },
  privsep: { type: 'boolean', optional: true },
  comment: { type: 'string', optional: true },
};
