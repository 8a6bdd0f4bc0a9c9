// Injected faults (one failure, or a request that is accepted and never answered), so tests can
// prove how a client treats a 5xx or a timeout without a real cluster misbehaving on cue.

/** A path pattern: a RegExp, or a string used as a RegExp source. */
export type PathPattern = RegExp | string;

interface Fault {
  readonly method: string;
  readonly pattern: RegExp;
  remaining: number;
  readonly status?: number;
  readonly message?: string;
  readonly errors?: Record<string, string>;
}

export interface InjectedFailure {
  readonly status: number;
  readonly message: string;
  readonly errors?: Record<string, string>;
}

// A `g` or `y` flag makes RegExp.test stateful; matching must not depend on earlier calls.
const compile = (pattern: PathPattern): RegExp =>
  typeof pattern === 'string'
    ? new RegExp(pattern)
    : new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ''));

/**
 * Faults are matched against the method (`*` = any) and against both the full path
 * (`/api2/json/cluster/...`) and the API-relative one (`/cluster/...`); the oldest match fires.
 */
export class Faults {
  private readonly queue: Fault[] = [];

  addFailure(method: string, pattern: PathPattern, failure: InjectedFailure): void {
    const fault = { method: method.toUpperCase(), pattern: compile(pattern), remaining: 1 };
    this.queue.push({ ...fault, ...failure });
  }

  addHang(method: string, pattern: PathPattern, times: number): void {
    this.queue.push({ method: method.toUpperCase(), pattern: compile(pattern), remaining: times });
  }

  /** Consumes and returns the first matching fault: a failure to send, or 'hang'. */
  take(method: string, paths: readonly string[]): InjectedFailure | 'hang' | undefined {
    const matches = (fault: Fault): boolean =>
      (fault.method === '*' || fault.method === method) &&
      paths.some((path) => fault.pattern.test(path));
    const index = this.queue.findIndex(matches);
    const fault = this.queue[index];
    if (!fault) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.queue.splice(index, 1);
    if (fault.status === undefined) return 'hang';
    return { status: fault.status, message: fault.message ?? '', errors: fault.errors };
  }

  clear(): void {
    this.queue.length = 0;
  }
}
