/**
 * What an API endpoint may be, shared by synth-time validation and the transport that re-checks
 * it at run time: HTTPS unless the user opted out with `insecure` (plain HTTP sends the credential
 * in clear), no credentials or query in the URL, and certificate pins in one normal form.
 */

/** Why `endpoint` may not be used, or undefined when it may. */
export const endpointProblem = (endpoint: string, insecure: boolean): string | undefined => {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'not a URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'neither https:// nor http://';
  if (url.protocol === 'http:' && !insecure) {
    return 'plain http:// (it would send the credential in clear); use https://, or set insecure: true to allow it';
  }
  if (url.username !== '' || url.password !== '')
    return 'carrying a user or password (credentials come from the environment)';
  if (url.search !== '' || url.hash !== '') return 'carrying a query or fragment';
  return undefined;
};

/**
 * `endpoint` as a message shows it: scheme, host and path alone, since its user part and query may hold a secret;
 * one that does not parse is not shown at all.
 */
export const shownEndpoint = (endpoint: string): string => {
  try {
    const url = new URL(endpoint);
    return `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`;
  } catch {
    return '(not a URL)';
  }
};

/** `AB:CD:...` or `abcd...` → lowercase hex without separators. */
export const normalizeFingerprint = (fingerprint: string): string => fingerprint.replace(/:/g, '').toLowerCase();

/** A pin in the `AA:BB:...` form PVE's web UI and `openssl x509 -fingerprint` show. */
export const displayFingerprint = (fingerprint: string): string =>
  (normalizeFingerprint(fingerprint).match(/../g) ?? []).join(':').toUpperCase();

/** Whether a pin is a SHA-256 fingerprint in either notation. */
export const isFingerprint = (fingerprint: string): boolean => /^[0-9a-f]{64}$/.test(normalizeFingerprint(fingerprint));
