// The PVE response envelope and error shapes, so clients are tested against what pveproxy sends
// and not against a friendlier invention (a message in the body on every version, say).
// Source: pve-api.md A6; [HS] Formatter/Standard.pm, AnyEvent.pm response().
import { STATUS_CODES, type ServerResponse } from 'node:http';

/** An API failure: the status, PVE's message text (die texts keep their final "\n") and errors. */
export class PveError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: Record<string, string>,
  ) {
    super(message);
  }
}

/** A failure answered with a status line only, as pveproxy relays a forward that never connected. */
export class BareError extends PveError {}

/** A result with attributes beside `data` (`changes`, `total`), as set_result_attrib adds them. */
export class Attributed {
  constructor(
    readonly data: unknown,
    readonly attributes: Readonly<Record<string, unknown>>,
  ) {}
}

/** A plain Perl `die "text\n"` inside a handler: 500 with the text as the message. */
export const die = (text: string): PveError => new PveError(500, `${text}\n`);

/** raise_param_exc: 400 `Parameter verification failed.` with one message per parameter. */
export const paramError = (errors: Record<string, string>): PveError =>
  new PveError(400, 'Parameter verification failed.\n', errors);

/** raise_perm_exc: 403 naming the ACL path and the missing privilege (A6). */
export const permError = (path: string, priv: string): PveError =>
  new PveError(403, `Permission check failed (${path}, ${priv})\n`);

/** rest_handler's default answer when no handler matches; this text has no newline. */
export const notImplemented = (method: string, relPath: string): PveError =>
  new PveError(501, `Method '${method} ${relPath}' not implemented`);

// pveproxy sends only the first line as the reason phrase; Node refuses control characters
// and anything beyond Latin-1 there, so those become '?' instead of crashing the fake.
const reasonPhrase = (status: number, message: string): string => {
  const first = message.split('\n')[0] ?? '';
  const clean = first.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?');
  return clean === '' ? (STATUS_CODES[status] ?? 'Error') : clean;
};

const JSON_TYPE = 'application/json;charset=UTF-8';

/** Success: `{"data": …}` with 200 OK, plus any attributes the handler set (never undefined ones). */
export const sendData = (res: ServerResponse, result: unknown): void => {
  const [data, attributes] = result instanceof Attributed ? [result.data, result.attributes] : [result, {}];
  const body = JSON.stringify({ data: data ?? null, ...attributes });
  const headers = { 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(body) };
  res.writeHead(200, 'OK', headers);
  res.end(body);
};

/**
 * Error: the reason phrase carries the first line of the message. The body has `message` only
 * since libpve-http-server-perl 5.2.0, so `oldServer` leaves it out (A6); `errors` stays.
 */
export const sendError = (res: ServerResponse, err: PveError, oldServer: boolean): void => {
  const envelope: Record<string, unknown> = { data: null };
  if (!oldServer) envelope.message = err.message;
  if (err.errors && Object.keys(err.errors).length > 0) envelope.errors = err.errors;
  const body = JSON.stringify(envelope);
  res.writeHead(err.status, reasonPhrase(err.status, err.message), {
    'Content-Type': JSON_TYPE,
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
};

/** Authentication failures answer with a status line only: no JSON body at all (A5). */
export const sendBare = (res: ServerResponse, status: number, message: string): void => {
  res.writeHead(status, reasonPhrase(status, message), { 'Content-Length': 0 });
  res.end();
};
