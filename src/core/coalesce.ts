/**
 * An action whose runs callers may share: a call while a run is in progress queues the next run, and
 * every call until that one starts shares it. Each caller gets a run that started after its call, so the
 * run sees what the caller changed before calling: a daemon-reload after a unit file's removal. One
 * host's destroys, served by one run of the relay, then cost a handful of reloads, not one each (pid 1
 * runs reloads one at a time and answers no `systemctl` meanwhile: README, Limits).
 */
export const coalesced = <T>(action: () => Promise<T>): (() => Promise<T>) => {
  let running: Promise<T> | undefined;
  let queued: Promise<T> | undefined;
  const start = (): Promise<T> => {
    const run = action().finally(() => {
      if (running === run) running = undefined;
    });
    running = run;
    return run;
  };
  return () => {
    if (queued !== undefined) return queued;
    if (running === undefined) return start();
    const next = running.then(
      () => undefined,
      () => undefined,
    );
    queued = next.then(() => {
      queued = undefined;
      return start();
    });
    return queued;
  };
};
