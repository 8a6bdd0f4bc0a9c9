// A raw HTTP(S) caller for the fake's own tests: it shows the status line, reason phrase and body
// exactly as sent, which fetch would partly hide, so the envelope itself can be asserted.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';

export const TOKEN = 'PVEAPIToken=root@pam!homelab=fake-secret-0000';

export interface CallOptions {
  /** The Authorization header; null sends none. @default TOKEN */
  readonly auth?: string | null;
  /** Sent form-urlencoded, in this order. */
  readonly form?: Record<string, string>;
  /** Sent as JSON. */
  readonly json?: Record<string, unknown>;
  /** A CA to trust for HTTPS. */
  readonly ca?: string;
  /** Abort after this many ms with an error. */
  readonly timeoutMs?: number;
  /** `path` is the whole URL path, not relative to `/api2/json`. */
  readonly raw?: boolean;
}

export interface CallResult {
  readonly status: number;
  readonly reason: string;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  /** The parsed body, or undefined when there is none. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests index PVE answers freely
  readonly body: any;
}

/** `path` is relative to the API root, e.g. `/cluster/metrics/server/a`. */
export const call = (baseUrl: string, method: string, path: string, options: CallOptions = {}): Promise<CallResult> => {
  const url = new URL(options.raw ? path : `/api2/json${path}`, baseUrl);
  const headers: Record<string, string> = {};
  const auth = options.auth === undefined ? TOKEN : options.auth;
  if (auth !== null) headers.Authorization = auth;
  let payload: string | undefined;
  if (options.form) {
    payload = new URLSearchParams(options.form).toString();
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
  } else if (options.json) {
    payload = JSON.stringify(options.json);
    headers['Content-Type'] = 'application/json';
  }
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { method, headers, ca: options.ca, timeout: options.timeoutMs }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          reason: res.statusMessage ?? '',
          headers: res.headers,
          text,
          body: text === '' ? undefined : JSON.parse(text),
        }),
      );
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(payload);
  });
};

/** Resolves once `condition` holds, checking every few ms; rejects after `timeoutMs`. */
export const waitFor = async (condition: () => boolean, timeoutMs = 5000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};
