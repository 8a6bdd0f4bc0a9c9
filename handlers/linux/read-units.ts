/**
 * One round trip that reads many units (or drop-ins) on a host, shared by every Linux kind's fetch
 * and by apply's read-backs; it fails naming the host when systemd does not answer, and naming the
 * login, its key's variable and the files when the login may not read a file the plan compares
 * (a read user facing a root-only file would otherwise plan it as absent).
 */
import { HandlerError } from '../../src/core/errors';
import { describeHost } from '../../src/linux/target';
import type { LiveUnit } from '../../src/linux/unit-control';
import { type ReadEntry, readScript } from '../../src/linux/unit-read';
import { parseReadScript, unreadableFiles } from '../../src/linux/unit-read-answer';
import type { HostSession } from './session';

/** Each entry with its live state, in the order given (`options`: unit-read.ts `readScript`). */
export const readUnits = async <E extends ReadEntry>(
  { remote, target }: HostSession,
  entries: readonly E[],
  options: Parameters<typeof readScript>[1] = {},
): Promise<Array<readonly [E, LiveUnit]>> => {
  const result = await remote.run('sh -s', readScript(entries, options), 'reads');
  const refused = unreadableFiles(result.stdout, entries);
  if (refused.length > 0) {
    const key = target.privateKeyEnv === undefined ? 'the ssh agent' : `the key in ${target.privateKeyEnv}`;
    throw new HandlerError(
      'SSH login may not read the files a plan compares',
      `${target.user} (${key}) was refused read access to ${refused.join(', ')}: a plan compares these files and ` +
        "reads the stack's marks among them (a hidden one is never taken for absent), so give that login read " +
        'access to each and search (x) access to every directory above it (the apply writes them 0644 in ' +
        'directories of mode 0755)',
      { Host: describeHost(target) },
    );
  }
  const live = parseReadScript(result.stdout, entries);
  if (live === undefined) {
    throw new HandlerError(
      'systemctl show gave no unit states',
      'the host must run systemd and let this user call systemctl',
      {
        Host: describeHost(target),
        Stderr: result.stderr.trim(),
      },
    );
  }
  return entries.map((entry, index) => {
    const unit = live[index];
    if (unit === undefined)
      throw new HandlerError(
        `the read of ${describeHost(target)} missed ${entry.unit}`,
        'systemctl show answered for fewer units than asked: read again',
      );
    return [entry, unit] as const;
  });
};
