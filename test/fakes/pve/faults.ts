// Injected faults (one failure, a request that is accepted and never answered, or an answer no
// PVE sends: a redirect, a trickled or endless body, a non-JSON body), so tests can prove how a
// client treats them without a real cluster, or a hostile box in its place, misbehaving on cue;
// and hooks, a human's edit landing just before a request, for races no timing could hit.

/** A path pattern: a RegExp, or a string used as a RegExp source. */
export type PathPattern = RegExp | string;

/** What a hostile or broken server does instead of answering as PVE would. */
export type Misbehaviour =
  /** Read the request, then cut the connection: a member killed after a request was sent. */
  | { readonly kind: 'reset' }
  /** A 3xx pointing elsewhere (a proxy, or an attacker). */
  | { readonly kind: 'redirect'; readonly status: number; readonly location: string }
  /** 200 with a Content-Length of `bytes`, then one byte every `intervalMs`. */
  | { readonly kind: 'slow-body'; readonly bytes: number; readonly intervalMs: number }
  /** 200 with a body that never ends, sent as fast as the client reads. */
  | { readonly kind: 'endless-body' }
  /** A status and body of the test's choosing: an HTML login page, `{"data":null}`. */
  | { readonly kind: 'raw'; readonly status: number; readonly contentType: string; readonly body: string };

interface Fault {
  readonly method: string;
  readonly pattern: RegExp;
  remaining: number;
  readonly status?: number;
  readonly message?: string;
  readonly errors?: Record<string, string>;
  readonly misbehaviour?: Misbehaviour;
}

export interface InjectedFailure {
  readonly status: number;
  readonly message: string;
  readonly errors?: Record<string, string>;
}

// A `g` or `y` flag makes RegExp.test stateful; matching must not depend on earlier calls.
const compile = (pattern: PathPattern): RegExp =>
  typeof pattern === 'string' ? new RegExp(pattern) : new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ''));

/**
 * Faults are matched against the method (`*` = any) and against both the full path
 * (`/api2/json/cluster/...`) and the API-relative one (`/cluster/...`); the oldest match fires.
 */
export class Faults {
  private readonly queue: Fault[] = [];
  private readonly hooks: Array<{ readonly method: string; readonly pattern: RegExp; readonly action: () => void }> =
    [];

  /** Runs `action` once, on the next matching request, just before the fake handles it. */
  addHook(method: string, pattern: PathPattern, action: () => void): void {
    this.hooks.push({ method: method.toUpperCase(), pattern: compile(pattern), action });
  }

  /** Consumes and returns the first matching hook's action. */
  takeHook(method: string, paths: readonly string[]): (() => void) | undefined {
    const index = this.hooks.findIndex(
      (hook) => (hook.method === '*' || hook.method === method) && paths.some((path) => hook.pattern.test(path)),
    );
    return index < 0 ? undefined : this.hooks.splice(index, 1)[0]?.action;
  }

  addFailure(method: string, pattern: PathPattern, failure: InjectedFailure): void {
    const fault = { method: method.toUpperCase(), pattern: compile(pattern), remaining: 1 };
    this.queue.push({ ...fault, ...failure });
  }

  addHang(method: string, pattern: PathPattern, times: number): void {
    this.queue.push({ method: method.toUpperCase(), pattern: compile(pattern), remaining: times });
  }

  addMisbehaviour(method: string, pattern: PathPattern, misbehaviour: Misbehaviour, times: number): void {
    this.queue.push({ method: method.toUpperCase(), pattern: compile(pattern), remaining: times, misbehaviour });
  }

  /** Consumes and returns the first matching fault: a failure to send, a misbehaviour, or 'hang'. */
  take(method: string, paths: readonly string[]): InjectedFailure | Misbehaviour | 'hang' | undefined {
    const matches = (fault: Fault): boolean =>
      (fault.method === '*' || fault.method === method) && paths.some((path) => fault.pattern.test(path));
    const index = this.queue.findIndex(matches);
    const fault = this.queue[index];
    if (!fault) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.queue.splice(index, 1);
    if (fault.misbehaviour !== undefined) return fault.misbehaviour;
    if (fault.status === undefined) return 'hang';
    return { status: fault.status, message: fault.message ?? '', errors: fault.errors };
  }

  clear(): void {
    this.queue.length = 0;
    this.hooks.length = 0;
  }
}
