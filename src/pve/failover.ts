/**
 * Which cluster member to ask next. A request that never reached a server may go to the next
 * member; one that did is answered, even by a 500, and a write is never sent twice, because a
 * timed-out POST may well have landed.
 */

/** Where a failed attempt stopped. */
export type AttemptFailure = 'unreached' | 'sent';

/** Error codes that mean no byte of the request reached an HTTP server. */
const UNREACHED_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'HOMELAB_PIN_MISMATCH',
]);

/** TLS handshake failures: the request was never sent either. */
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|EPROTO$|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_OSSL)/;

/** Classifies a transport error by its code (undici wraps the cause of `fetch failed`). */
export const classifyFailure = (error: unknown): AttemptFailure => {
  const code = errorCode(error);
  if (code !== undefined && (UNREACHED_CODES.has(code) || TLS_CODE.test(code))) return 'unreached';
  return 'sent';
};

/** The innermost error code along the `cause` chain. */
const errorCode = (error: unknown): string | undefined => {
  let code: string | undefined;
  for (let e = error; typeof e === 'object' && e !== null; e = (e as { cause?: unknown }).cause) {
    const own = (e as { code?: unknown }).code;
    if (typeof own === 'string') code = own;
  }
  return code;
};

/** Whether the next member may be tried after this failure: only when nothing was sent. */
export const mayFailOver = (failure: AttemptFailure): boolean => failure === 'unreached';

/** Members to try, the last one that answered first, the rest in declared order. */
export const memberOrder = (endpoints: readonly string[], lastGood: string | undefined): string[] =>
  lastGood !== undefined && endpoints.includes(lastGood)
    ? [lastGood, ...endpoints.filter((e) => e !== lastGood)]
    : [...endpoints];
