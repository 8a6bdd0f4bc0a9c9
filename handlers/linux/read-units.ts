/**
 * One round trip that reads many units (or drop-ins) on a host, shared by every Linux kind's fetch
 * and by apply's read-backs; it fails naming the host when systemd does not answer.
 */
import { HandlerError } from '../../src/core/errors';
import { describeHost } from '../../src/linux/target';
import type { LiveUnit } from '../../src/linux/unit-control';
import { parseReadScript, type ReadEntry, readScript } from '../../src/linux/unit-read';
import type { HostSession } from './session';

export const readUnits = async (
  { remote, target }: HostSession,
  entries: readonly ReadEntry[],
): Promise<LiveUnit[]> => {
  const result = await remote.run('sh -s', readScript(entries), 'reads');
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
  return live;
};
