/**
 * PVE task ids (UPIDs) and the paths that poll them. A UPID comes from the server, so it is checked
 * against PVE's own grammar before it goes into a path: one carrying `/`, `?` or `#` could otherwise
 * send the poll somewhere else. Source: pve-api.md §A4; [PC] PVE/UPID.pm decode.
 */

export interface Upid {
  readonly node: string;
  readonly type: string;
  readonly id: string;
  readonly user: string;
  /** Seconds since the epoch. */
  readonly starttime: number;
}

// `UPID:<node>:<pid 8 hex>:<pstart 8-9 hex>:<starttime 8 hex>:<type>:<id>:<user>:`, as UPID.pm decodes.
const NODE = '[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?';
const HEX8 = '[0-9A-Fa-f]{8}';
const FIELD = '[^:\\s/]';
const UPID = new RegExp(`^UPID:(${NODE}):${HEX8}:[0-9A-Fa-f]{8,9}:(${HEX8}):(${FIELD}+):(${FIELD}*):(${FIELD}+):$`);

/** PVE's node-name format (pve-node). */
export const NODE_NAME = /^[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?$/;

/** The UPID's parts, or undefined when PVE itself could not parse it. */
export const parseUpid = (upid: string): Upid | undefined => {
  const match = UPID.exec(upid);
  if (!match) return undefined;
  const [node = '', starttime = '', type = '', id = '', user = ''] = match.slice(1);
  return { node, type, id, user, starttime: parseInt(starttime, 16) };
};

// RFC 3986 pchar: what a path segment may hold unescaped. Every character of a normal UPID
// (letters, digits, `:`, `@`, `!`, `-`, `_`, `.`) is one, so a normal UPID goes in as sent.
const PCHAR = /[^A-Za-z0-9\-._~!$&'()*+,;=:@]/g;

const segment = (text: string): string =>
  text.replace(PCHAR, (char) =>
    [...Buffer.from(char, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );

/**
 * `nodes/<node>/tasks/<upid>/status` (or `/log`), the node taken from the UPID. The UPID goes in
 * raw: PVE's own clients never encode it, so nothing relies on the server decoding `:`, `@` or `!`
 * (it does, [HS] AnyEvent.pm `uri_unescape`, but that was read, not measured). Only characters a
 * path cannot carry are escaped, and those are what uri_unescape undoes.
 */
export const taskPath = (upid: string, leaf: 'status' | 'log'): string => {
  const parsed = parseUpid(upid);
  if (!parsed) throw new Error(`not a PVE task id: ${JSON.stringify(upid.slice(0, 120))}`);
  return `nodes/${parsed.node}/tasks/${segment(upid)}/${leaf}`;
};
