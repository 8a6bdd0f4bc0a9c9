// API-token authentication and the two privileges these endpoints check, parsed the way pveproxy
// parses them, so a client's header format and its 401/403 handling meet PVE's real rules.
// Source: pve-api.md A5; [HS] Formatter.pm auth header regex, [PM] HTTPServer.pm auth_handler.

/** What a token may do on `/`: `audit` = Sys.Audit; `modify` = Sys.Audit + Sys.Modify. */
export type Privileges = 'none' | 'audit' | 'modify';
export type Privilege = 'Sys.Audit' | 'Sys.Modify';

export interface TokenGrant {
  readonly secret: string;
  readonly privileges: Privileges;
  /**
   * Rights on `/nodes/<node>`, replacing what `/` propagates there (a more specific ACL path wins).
   * @default - the rights on `/`
   */
  readonly nodes?: Readonly<Record<string, Privileges>>;
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

/**
 * No PVEAPIToken header falls through to the ticket branch, which dies `No ticket`; a token
 * that is malformed, unknown or has the wrong secret is `Authentication failed!` (A5).
 */
export const authenticate = (
  header: TokenHeader | undefined,
  tokens: Readonly<Record<string, TokenGrant>>,
): AuthOutcome => {
  if (header === undefined) return { ok: false, reason: 'No ticket' };
  const grant = header.tokenId === undefined ? undefined : tokens[header.tokenId];
  if (!grant || !Object.hasOwn(tokens, header.tokenId!) || grant.secret !== header.secret) {
    return { ok: false, reason: 'Authentication failed!' };
  }
  return { ok: true, tokenId: header.tokenId!, privileges: grant.privileges, grant };
};

/** Whether privilege-separated token rights on `/` include the privilege. */
export const holds = (privileges: Privileges, privilege: Privilege): boolean =>
  privileges === 'modify' || (privileges === 'audit' && privilege === 'Sys.Audit');

/** The grant's rights on an ACL path: `/`, or `/nodes/<node>` where a node grant overrides. */
export const privilegesOn = (grant: TokenGrant, path: string): Privileges => {
  const node = /^\/nodes\/([^/]+)$/.exec(path)?.[1];
  if (node !== undefined && grant.nodes && Object.hasOwn(grant.nodes, node)) return grant.nodes[node]!;
  return grant.privileges;
};
