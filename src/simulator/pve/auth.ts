// API-token authentication and the privileges these endpoints check, parsed the way pveproxy
// parses them, so a client's header format and its 401/403 handling meet PVE's real rules.
// Source: pve-api.md A5; [HS] Formatter.pm auth header regex, [PM] HTTPServer.pm auth_handler;
// [AC] RPCEnvironment.pm permissions, check_sdn_bridge.

/**
 * What a token may do on a path: `audit` = Sys.Audit; `modify` = Sys.Audit + Sys.Modify; `modify-only` =
 * Sys.Modify alone (a custom role: `pveum role add NetWrite -privs Sys.Modify`), which may reload a node but
 * not read the status of a task another token started there.
 */
export type Privileges = 'none' | 'audit' | 'modify' | 'modify-only';
export type Privilege = 'Sys.Audit' | 'Sys.Modify';
/** A privilege `GET /access/permissions` may list: these endpoints' own, and the one bridges need. */
export type PrivilegeName = Privilege | 'SDN.Audit';

export interface TokenGrant {
  readonly secret: string;
  readonly privileges: Privileges;
  /**
   * Rights on `/nodes/<node>`, replacing what `/` propagates there (a more specific ACL path wins).
   * @default - the rights on `/`
   */
  readonly nodes?: Readonly<Record<string, Privileges>>;
  /**
   * Where the token holds SDN.Audit, which lists a bridge in `GET nodes/{node}/network`: `true` on
   * every path (a role with it on `/`: PVEAuditor, Administrator), `false` nowhere (a role of
   * Sys.Audit + Sys.Modify only), or the ACL paths below `/sdn/zones/localnetwork/` that grant it:
   * `vmbr1` (that bridge), `vmbr1/40` (one VLAN on it, which lists the bridge too).
   * @default - true when `privileges` is 'audit' or 'modify', else false
   */
  readonly sdnAudit?: boolean | readonly string[];
  /**
   * Where the token holds User.Modify, which lets it create and remove other users' tokens
   * (api-tokens.ts): `true` on `/access/groups` (every group, so every user, root@pam included), or
   * the groups `/access/groups/<group>` it holds it on (their members only).
   * @default false
   */
  readonly userModify?: boolean | readonly string[];
  /** Seconds since the epoch after which the token authenticates no more; 0 or unset: never. */
  readonly expire?: number;
}

export const DEFAULT_TOKENS: Readonly<Record<string, TokenGrant>> = {
  'root@pam!homelab': { secret: 'fake-secret-0000', privileges: 'modify' },
};

/** The header after the PVEAPIToken prefix: the token id (never the secret) and the secret. */
export interface TokenHeader {
  readonly tokenId?: string;
  readonly secret?: string;
}

// URI::Escape::uri_unescape: %XX only, never fails on a stray '%'.
export const uriUnescape = (text: string): string =>
  text.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/**
 * `(?:^|\s)PVEAPIToken(?:=| )([^;]*)`, URI-unescaped, split on the LAST `=` (the greedy
 * `^(.*)=(.*)$`): a token id may contain `=`, a secret may not. Undefined: no token at all.
 */
export const parseTokenHeader = (header: string | undefined): TokenHeader | undefined => {
  const match = header === undefined ? null : /(?:^|\s)PVEAPIToken(?:=| )([^;]*)/.exec(header);
  if (!match) return undefined;
  const value = uriUnescape(match[1] ?? '');
  const split = value.lastIndexOf('=');
  if (split < 0) return {};
  return { tokenId: value.slice(0, split), secret: value.slice(split + 1) };
};

export type AuthOutcome =
  | { readonly ok: true; readonly tokenId: string; readonly privileges: Privileges; readonly grant: TokenGrant }
  | { readonly ok: false; readonly reason: string };

/** verify_token: `token '<id>' access expired` once `expire` (epoch seconds, 0 = never) is past. */
export const expired = (grant: TokenGrant, nowSeconds: number): boolean =>
  grant.expire !== undefined && grant.expire > 0 && grant.expire < nowSeconds;

/**
 * No PVEAPIToken header falls through to the ticket branch, which dies `No ticket`; a token
 * that is malformed, unknown, expired or has the wrong secret is `Authentication failed!` (A5).
 */
export const authenticate = (
  header: TokenHeader | undefined,
  tokens: Readonly<Record<string, TokenGrant>>,
  nowSeconds = 0,
): AuthOutcome => {
  if (header === undefined) return { ok: false, reason: 'No ticket' };
  const { tokenId } = header;
  const grant = tokenId !== undefined && Object.hasOwn(tokens, tokenId) ? tokens[tokenId] : undefined;
  if (tokenId === undefined || !grant || grant.secret !== header.secret || expired(grant, nowSeconds)) {
    return { ok: false, reason: 'Authentication failed!' };
  }
  return { ok: true, tokenId, privileges: grant.privileges, grant };
};

/** Whether privilege-separated token rights on `/` include the privilege. */
export const holds = (privileges: Privileges, privilege: Privilege): boolean =>
  privileges === 'modify' ||
  (privileges === 'audit' && privilege === 'Sys.Audit') ||
  (privileges === 'modify-only' && privilege === 'Sys.Modify');

/** The grant's rights on an ACL path: `/`, or `/nodes/<node>` where a node grant overrides. */
export const privilegesOn = (grant: TokenGrant, path: string): Privileges => {
  const node = /^\/nodes\/([^/]+)$/.exec(path)?.[1];
  const { nodes } = grant;
  const onNode = node !== undefined && nodes && Object.hasOwn(nodes, node) ? nodes[node] : undefined;
  return onNode ?? grant.privileges;
};

const LOCAL_ZONE = '/sdn/zones/localnetwork/';

/** Whether the grant holds SDN.Audit on `path`; a listed ACL path propagates to the paths below it. */
const sdnAuditOn = (grant: TokenGrant, path: string): boolean => {
  const sdn = grant.sdnAudit ?? (grant.privileges === 'audit' || grant.privileges === 'modify');
  if (typeof sdn === 'boolean') return sdn;
  const below = path.startsWith(LOCAL_ZONE) ? path.slice(LOCAL_ZONE.length) : undefined;
  return below !== undefined && sdn.some((acl) => below === acl || below.startsWith(`${acl}/`));
};

/** Every privilege the grant holds on `path`, as `GET /access/permissions` lists them. */
export const privilegesAt = (grant: TokenGrant, path: string): PrivilegeName[] => {
  const sys = privilegesOn(grant, path);
  const held = (['Sys.Audit', 'Sys.Modify'] as const).filter((privilege) => holds(sys, privilege));
  return sdnAuditOn(grant, path) ? [...held, 'SDN.Audit'] : held;
};

/**
 * check_sdn_bridge(localnetwork, bridge, [SDN.Audit, SDN.Use]): the right on the bridge's path, or
 * on one of the VLAN paths an ACL holds below it. A token is never `root@pam` (its user is
 * `root@pam!<id>`), so no token skips this check.
 */
export const seesBridge = (grant: TokenGrant, bridge: string): boolean => {
  if (sdnAuditOn(grant, `${LOCAL_ZONE}${bridge}`)) return true;
  const acls = Array.isArray(grant.sdnAudit) ? grant.sdnAudit : [];
  return acls.some((acl) => acl.startsWith(`${bridge}/`));
};

/** The ACL paths a grant names, which `GET /access/permissions` lists along with the top-level ones. */
export const aclPaths = (grant: TokenGrant): string[] => [
  ...Object.keys(grant.nodes ?? {}).map((node) => `/nodes/${node}`),
  ...(Array.isArray(grant.sdnAudit) ? grant.sdnAudit.map((acl) => `${LOCAL_ZONE}${acl}`) : []),
];

/** The paths `get_effective_permissions` always looks at, besides those ACLs name. */
const TOP_PATHS = ['/', '/access', '/access/groups', '/nodes', '/pool', '/sdn', '/storage', '/vms'];

/**
 * `GET /access/permissions`: `{path: {privilege: propagate}}` for `path`, or for every top-level and
 * ACL path where the token holds something. A privilege is set when its key is there (0 or 1).
 */
export const permissionsOf = (grant: TokenGrant, path?: string): Record<string, Record<string, number>> => {
  const of = (at: string) => Object.fromEntries(privilegesAt(grant, at).map((privilege) => [privilege, 1]));
  if (path !== undefined) return { [path]: of(path) };
  const paths = [...new Set([...TOP_PATHS, ...aclPaths(grant)])];
  return Object.fromEntries(
    paths.map((at) => [at, of(at)] as const).filter(([, held]) => Object.keys(held).length > 0),
  );
};
