/**
 * A destroy leader's signals (lead-signals.ts) over a port driven by hand: on each, the relay's files released, one
 * line naming the signal and what is in flight, then the same signal again with no handler left; none after unhook.
 */
import {
  LEAD_SIGNALS,
  releaseOnSignals,
  type LeadSignal,
  type SignalPort,
  stoppedLeaderLine,
} from '../../../../../src/core/destroy-relay/lead-signals';

const fakePort = () => {
  const handlers = new Map<LeadSignal, Array<() => void>>();
  const done: string[] = [];
  const port: SignalPort = {
    on: (signal, handler) => handlers.set(signal, [...(handlers.get(signal) ?? []), handler]),
    off: (signal, handler) =>
      handlers.set(
        signal,
        (handlers.get(signal) ?? []).filter((h) => h !== handler),
      ),
    say: (line) => done.push(`say ${line}`),
    raise: (signal) => done.push(`raise ${signal}`),
  };
  const send = (signal: LeadSignal) => [...(handlers.get(signal) ?? [])].forEach((handler) => handler());
  const listening = () => LEAD_SIGNALS.flatMap((signal) => (handlers.get(signal) ?? []).map(() => signal));
  return { port, send, done, listening };
};

test.each(LEAD_SIGNALS)('%s: release, the line, the signal again, and no handler left', (signal) => {
  const { port, send, done, listening } = fakePort();
  releaseOnSignals(
    port,
    () => done.push('release'),
    () => 2,
  );
  expect(listening()).toEqual(LEAD_SIGNALS);
  send(signal);
  expect(done).toEqual(['release', `say ${stoppedLeaderLine(signal, 2)}`, `raise ${signal}`]);
  expect(listening()).toEqual([]);
});

test('after unhook a signal is not the leader’s: nothing released, nothing said', () => {
  const { port, send, done, listening } = fakePort();
  releaseOnSignals(
    port,
    () => done.push('release'),
    () => 0,
  )();
  send('SIGINT');
  expect({ done, listening: listening() }).toEqual({ done: [], listening: [] });
});

test('the line names the signal and how many objects were in flight', () => {
  expect(stoppedLeaderLine('SIGINT', 1)).toMatch(/^destroy leader stopped by SIGINT with 1 object in flight: /);
  expect(stoppedLeaderLine('SIGTERM', 3)).toMatch(/^destroy leader stopped by SIGTERM with 3 objects in flight: /);
  expect(stoppedLeaderLine('SIGHUP', 0)).toContain('the next destroy finishes it');
});
