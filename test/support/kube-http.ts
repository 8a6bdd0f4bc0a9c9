/**
 * A deliberately small JSON client for the test API server (node:https, its CA, a bearer token), for fixtures and
 * the test controller only: bounded waits, no redirects, and watch streams split into events as the server sends them.
 */
import * as https from 'node:https';

export interface KubeCaller {
  readonly server: string;
  readonly caPem: string;
  readonly token: string;
}

export interface KubeAnswer<T = unknown> {
  readonly status: number;
  /** Parsed JSON when the server sent JSON, else the raw text (e.g. `404 page not found`). */
  readonly body: T;
}

const REQUEST_MS = 15_000;

const open = (caller: KubeCaller, method: string, path: string, headers: Record<string, string>) =>
  https.request(new URL(path, caller.server), {
    method,
    ca: caller.caPem,
    headers: { authorization: `Bearer ${caller.token}`, accept: 'application/json', ...headers },
    timeout: REQUEST_MS,
  });

/** One request; `contentType` defaults to JSON for a body (merge patches pass their own). */
export const kubeRequest = <T = unknown>(
  caller: KubeCaller,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<KubeAnswer<T>> =>
  new Promise((resolve, reject) => {
    const req = open(caller, method, path, body === undefined ? {} : { 'content-type': contentType });
    req.once('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in ${REQUEST_MS} ms`)));
    req.once('error', reject);
    req.once('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.once('error', reject);
      res.once('end', () => {
        const json = /json/.test(res.headers['content-type'] ?? '');
        resolve({ status: res.statusCode ?? 0, body: json && text ? JSON.parse(text) : text });
      });
    });
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });

/** A request that must succeed with one of `ok`; anything else throws with the API's Status message. */
export const kubeExpect = async <T = unknown>(
  caller: KubeCaller,
  method: string,
  path: string,
  body?: unknown,
  ok: readonly number[] = [200, 201],
  contentType?: string,
): Promise<T> => {
  const answer = await kubeRequest<T>(caller, method, path, body, contentType);
  if (!ok.includes(answer.status)) {
    const message = typeof answer.body === 'string' ? answer.body : (answer.body as { message?: string }).message;
    throw new Error(`${method} ${path}: HTTP ${answer.status}: ${message}`);
  }
  return answer.body;
};

export interface WatchEvent<T = unknown> {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  readonly object: T;
}

export interface WatchStream {
  /** Resolves with the HTTP status once headers arrive (a 410 may come here, or as an ERROR event). */
  readonly status: Promise<number>;
  /** Resolves when the server ends the stream or `close()` is called. */
  readonly ended: Promise<void>;
  close(): void;
}

/** Opens `GET path` as a watch (path carries `?watch=1&resourceVersion=...`) and calls `onEvent` per line. */
export const kubeWatch = <T = unknown>(
  caller: KubeCaller,
  path: string,
  onEvent: (e: WatchEvent<T>) => void,
): WatchStream => {
  const req = open(caller, 'GET', path, {});
  req.setTimeout(0); // a watch is quiet for long stretches; the server's own timeoutSeconds bounds it
  let resolveStatus!: (s: number) => void;
  const status = new Promise<number>((r) => (resolveStatus = r));
  const ended = new Promise<void>((resolveEnded) => {
    req.once('error', () => {
      resolveStatus(0);
      resolveEnded();
    });
    req.once('close', () => resolveEnded());
    req.once('response', (res) => {
      resolveStatus(res.statusCode ?? 0);
      let buffered = '';
      res.setEncoding('utf8').on('data', (chunk: string) => {
        buffered += chunk;
        for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
          const line = buffered.slice(0, nl).trim();
          buffered = buffered.slice(nl + 1);
          if (line && res.statusCode === 200) onEvent(JSON.parse(line) as WatchEvent<T>);
        }
      });
      res.once('error', () => resolveEnded());
      res.once('end', () => resolveEnded());
    });
  });
  req.end();
  return { status, ended, close: () => req.destroy() };
};
