// API-token authentication and the two privileges these endpoints check, parsed the way pveproxy
// parses them, so a client's header format and its 401/403 handling meet PVE's real rules.
// Source: pve-api.md A5; [HS] Formatter.pm auth header regex, [PM] HTTPServer.pm auth_handler.

/** What a token may do on `/`: `audit` = Sys.Audit; `modify` = Sys.Audit + Sys.Modify. */
export type Privileges = 'none' | 'audit' | 'modify';
export type Privilege = 'Sys.Audit' | 'Sys.Modify';

export interface TokenGrant {
  readonly secret: string;
  readonly privileges: Privileges;
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
const uriUnescape = (text: string): string =>
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
  | { readonly ok: true; readonly tokenId: string; readonly privileges: Privileges }
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
  return { ok: true, tokenId: header.tokenId!, privileges: grant.privileges };
};

/** Whether privilege-separated token rights on `/` include the privilege. */
export const holds = (privileges: Privileges, privilege: Privilege): boolean =>
  privileges === 'modify' || (privileges === 'audit' && privilege === 'Sys.Audit');
