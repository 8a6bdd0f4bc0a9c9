/**
 * The port every PVE kind talks through, so kinds share one client per process and tests can
 * hand in their own.
 */

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Form parameters; booleans go as 0/1, which is all PVE accepts in a form body. */
export type Params = Readonly<Record<string, string | number | boolean | undefined>>;

export interface PveApi {
  /** `data` of PVE's answer. */
  call<T>(method: Method, path: string, params?: Params): Promise<T>;
  /** Closes idle connections so the handler process can exit at once. */
  close(): Promise<void>;
}
