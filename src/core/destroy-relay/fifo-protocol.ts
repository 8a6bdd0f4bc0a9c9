/**
 * What the sh destroy hook (handlers/destroy-hook.sh) and its Node leader (fifo-lead.ts) say to each other,
 * as pure functions: the names in the relay folder, a request file's fields, the reply's lines, and which
 * leftovers of dead processes a sweep removes. It prevents a value breaking the framing (a request is
 * NUL-separated data, never parsed as shell or as a line), and a killed hook or leader leaving files behind.
 */
import { ENV } from '../protocol';
import { printableLine } from '../printable';
import type { DestroyOutcome } from './relay';

/** The variables a hook passes; any other name in a request is refused. */
export const REQUEST_FIELDS: readonly string[] = [
  ENV.kind,
  ENV.stack,
  ENV.lifecycle,
  ENV.target,
  ENV.targetLabel,
  ENV.adopt,
  ENV.declared,
];

/** Set by the sh hook that claimed its domain's lock, on the Node hook it then becomes (the leader). */
export const RELAY_DOMAIN = 'HOMELAB_RELAY_DOMAIN';

/** A request file holds at most this many bytes (an object's input is a few KiB). */
export const MAX_REQUEST_BYTES = 1 << 20;
/** Most lines of one object's outcome written back to its hook. */
const MAX_LINES = 200;

const PID = /^[1-9][0-9]{0,9}$/;
/** A domain's name, as every bundle's is (KIND_NAME): it names the leader's lock and FIFO. */
const DOMAIN = /^[a-z][a-z0-9-]*$/;

/** The files of a relay folder this protocol names; `pid` is the process whose death makes them stale. */
export type RelayFile =
  | { readonly kind: 'lock'; readonly domain: string }
  | { readonly kind: 'fifo' | 'claim' | 'serving'; readonly domain: string; readonly pid: number }
  | { readonly kind: 'request' | 'reply'; readonly pid: number };

export const lockName = (domain: string): string => `${domain}.lead`;
export const fifoName = (domain: string, pid: number): string => `${domain}.${pid}.in`;
/** Made by a leader once it reads its FIFO: a hook's watchdog counts from then (destroy-hook.sh). */
export const servingName = (domain: string, pid: number): string => `${domain}.${pid}.up`;
export const requestName = (pid: number): string => `h${pid}.req`;
export const replyName = (pid: number): string => `h${pid}.out`;

/** Whether `name` may name a leader's lock and FIFO (the sh hook refuses any other). */
export const isDomainName = (name: string | undefined): name is string => name !== undefined && DOMAIN.test(name);

/** The hook's pid from one line of the leader's FIFO, or undefined for anything else. */
export const hookPid = (line: string): number | undefined => (PID.test(line) ? Number(line) : undefined);

const FIFO_KINDS: Readonly<Record<string, 'fifo' | 'claim' | 'serving'>> = { in: 'fifo', new: 'claim', up: 'serving' };

/** A relay folder entry this protocol made, or undefined (a relay socket, or anything else). */
export const relayFile = (name: string): RelayFile | undefined => {
  const hook = /^h([1-9][0-9]{0,9})\.(req|out)$/.exec(name);
  if (hook?.[1] !== undefined) return { kind: hook[2] === 'req' ? 'request' : 'reply', pid: Number(hook[1]) };
  // `<domain>.<pid>.new`: the file a hook writes its pid to before linking it as the lock (destroy-hook.sh);
  // `<domain>.<pid>.up`: the leader's, once it serves.
  const fifo = /^([a-z][a-z0-9-]*)\.([1-9][0-9]{0,9})\.(in|new|up)$/.exec(name);
  if (fifo?.[1] !== undefined)
    return { kind: FIFO_KINDS[fifo[3] ?? ''] ?? 'fifo', domain: fifo[1], pid: Number(fifo[2]) };
  const lock = /^([a-z][a-z0-9-]*)\.lead$/.exec(name);
  return lock?.[1] === undefined ? undefined : { kind: 'lock', domain: lock[1] };
};

/**
 * The entries a sweep removes: those of processes that are gone (`alive` false), a lock whose holder
 * (`lockHolder`, read from it) is gone or unreadable. A live process's files stay: they are in use.
 */
export const staleEntries = (
  names: readonly string[],
  alive: (pid: number) => boolean,
  lockHolder: (name: string) => number | undefined,
): string[] =>
  names.filter((name) => {
    const file = relayFile(name);
    if (file === undefined) return false;
    if (file.kind !== 'lock') return !alive(file.pid);
    const holder = lockHolder(name);
    return holder === undefined || !alive(holder);
  });

/**
 * A request file's variables: `NAME=value` fields, each ended by a NUL. Undefined when a field is not of
 * that form, names a variable the hook does not pass, or comes twice: the request is then refused whole.
 */
export const requestFields = (text: string): Readonly<Record<string, string>> | undefined => {
  if (text.length === 0 || !text.endsWith('\0')) return undefined;
  const fields: Record<string, string> = {};
  for (const field of text.slice(0, -1).split('\0')) {
    const at = field.indexOf('=');
    const name = field.slice(0, at);
    if (at < 0 || !REQUEST_FIELDS.includes(name) || Object.hasOwn(fields, name)) return undefined;
    fields[name] = field.slice(at + 1);
  }
  return fields;
};

/** The acknowledgement: the leader took the request (the hook stops its watchdog). */
export const ACK = 'a\n';
/** The answer to a request this leader does not serve: the hook destroys through the Node hook. */
export const DECLINED = 'n\n';

/**
 * An outcome as the hook prints it: each line (one printable line each, at most MAX_LINES of them) after
 * `l`, then `x<code>`, the hook's exit code (0-255).
 */
export const replyText = ({ code, lines }: DestroyOutcome): string => {
  const kept =
    lines.length > MAX_LINES
      ? [...lines.slice(0, MAX_LINES - 1), `(${lines.length - MAX_LINES + 1} more lines)`]
      : lines;
  const exit = Number.isInteger(code) && code >= 0 && code <= 255 ? code : 1;
  return `${kept.map((line) => `l${printableLine(line)}\n`).join('')}x${exit}\n`;
};
