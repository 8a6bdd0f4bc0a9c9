/**
 * Out-of-band looks at a unit directory on the test host for the fault tests: the temp files a
 * write left there, a file's digest, and bounded waits on them, so no test sleeps for a guess.
 */
import type { SystemdHost } from './systemd-host';

export const UNIT_DIR = '/etc/systemd/system';

/**
 * The sizes in bytes of the temp files (`.<name>.<n>`) a write of `name` has in `UNIT_DIR`: in the private
 * directory the root helper stages a request's files in (`.cdktf-homelab-root.XXXXXX`), or beside the file.
 */
export const tempFileSizes = async (host: SystemdHost, name: string): Promise<number[]> => {
  const { stdout } = await host.exec(`find ${UNIT_DIR} -maxdepth 2 -name '.${name}.*' -printf '%s\\n'`);
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map(Number);
};

/** The sha256 of `UNIT_DIR/name`, or "absent". */
export const unitFileDigest = async (host: SystemdHost, name: string): Promise<string> => {
  const { stdout } = await host.exec(`sha256sum < ${UNIT_DIR}/${name} 2>/dev/null | cut -c1-64 || true`);
  return stdout.trim() === '' ? 'absent' : stdout.trim();
};

/** Polls `probe` until it returns a value, for at most `ms`; then fails saying what never happened. */
export const pollUntil = async <T>(what: string, probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> => {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

/** Waits until no write of `name` has a temp file left, for at most `ms`. */
export const noTempFilesLeft = (host: SystemdHost, name: string, ms = 30_000) =>
  pollUntil(
    `the temp files of ${name} in ${UNIT_DIR} are all gone`,
    async () => ((await tempFileSizes(host, name)).length === 0 ? true : undefined),
    ms,
  );

/** A unit file of about `bytes`: comment padding between a real [Unit] and [Service]. */
export const bigUnit = (bytes: number, description: string): string => {
  const pad = `# ${'padding '.repeat(12)}\n`;
  return (
    `[Unit]\nDescription=${description}\n${pad.repeat(Math.ceil(bytes / pad.length))}` +
    `[Service]\nExecStart=/bin/sleep infinity\n`
  );
};
