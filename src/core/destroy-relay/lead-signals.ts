/**
 * What a leader of sh destroy hooks does when it is signalled: a Ctrl-C reaches the whole process group, a `kill`
 * or a closed terminal the leader alone. Node's default let it die where it stood: its lock, FIFO and `up` file stayed
 * for the next hook to sweep (were its pid taken by another process meanwhile, each hook would wait its 5 s watchdog
 * for it: reasoned from destroy-hook.sh, hunt-ctrlc 2026-12-07), and Terraform showed `signal: interrupt` and nothing
 * of what the objects in flight were left as. It now removes them at once, says so in one line, and dies of the same
 * signal, so Terraform reports it as before.
 */

export type LeadSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';

export const LEAD_SIGNALS: readonly LeadSignal[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** The process as the leader's signal handling sees it: a port, so a test drives it by hand. */
export interface SignalPort {
  on(signal: LeadSignal, handler: () => void): void;
  off(signal: LeadSignal, handler: () => void): void;
  /** Writes one line to the hook's output, before the process dies. */
  say(line: string): void;
  /** The signal again, with no handler left: the process dies of it. */
  raise(signal: LeadSignal): void;
}

/** The leader's one line, for `inFlight` objects (its own among them) it had not answered. */
export const stoppedLeaderLine = (signal: LeadSignal, inFlight: number): string =>
  `destroy leader stopped by ${signal} with ${inFlight} ${inFlight === 1 ? 'object' : 'objects'} in flight: a ` +
  "hook still running destroys its object itself, and a destroy cut short keeps its object's lifecycle in the state, " +
  'so the next plan names it and the next destroy finishes it';

/**
 * From now until the returned function is called: on a signal, `release` (the lock, the FIFO and the `up` file),
 * the line, then the signal again.
 */
export const releaseOnSignals = (port: SignalPort, release: () => void, inFlight: () => number): (() => void) => {
  const handlers = LEAD_SIGNALS.map((signal) => {
    const handler = () => {
      unhook();
      release();
      port.say(stoppedLeaderLine(signal, inFlight()));
      port.raise(signal);
    };
    return [signal, handler] as const;
  });
  const unhook = () => {
    for (const [signal, handler] of handlers) port.off(signal, handler);
  };
  for (const [signal, handler] of handlers) port.on(signal, handler);
  return unhook;
};

/** Node's own process as a `SignalPort`. */
export const nodeSignals = (): SignalPort => ({
  on: (signal, handler) => void process.on(signal, handler),
  off: (signal, handler) => void process.removeListener(signal, handler),
  // A pipe's write is synchronous on Linux (Node's process I/O docs), so the line is out before the signal.
  say: (line) => void process.stderr.write(`${line}\n`),
  raise: (signal) => void process.kill(process.pid, signal),
});
