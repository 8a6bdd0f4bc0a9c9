/**
 * Reads an SSH host for discover, with the handlers' SSH client (pinned host key, bounded commands,
 * capped output): one listing of /etc/systemd/system, then the units' states and the stacks' marks
 * through the same read script the systemd kinds use. Both are reads: nothing on the host changes.
 */
import { HandlerError } from '../core/errors';
import { connectSsh } from '../linux/ssh';
import { describeHost, parseSshTarget, sshTargetOf, targetFor } from '../linux/target';
import { readScript } from '../linux/unit-read';
import { parseReadScript, unreadableFiles } from '../linux/unit-read-answer';
import type { Discovered, Value } from './declaration';
import { globMatcher, listingScript, parseListing } from './host-listing';
import type { DiscoverOptions } from './options';
import { hostCandidates, statusEntries, systemdDeclarations } from './systemd';

export const readHost = async (
  options: DiscoverOptions,
  props: Readonly<Record<string, Value>>,
): Promise<Discovered> => {
  // Discover only reads: it logs in as the read user when the host has one.
  const target = targetFor(parseSshTarget(sshTargetOf(props)), 'read');
  const remote = await connectSsh(target);
  try {
    const listing = parseListing((await remote.run('sh -s', listingScript(), 'reads')).stdout);
    const all = hostCandidates(listing, globMatcher(options.unitGlobs));
    const found = {
      ...all,
      units: options.kinds.has('systemd-unit') ? all.units : [],
      instances: options.kinds.has('systemd-instance') ? all.instances : [],
      dropIns: options.kinds.has('systemd-drop-in') ? all.dropIns : [],
    };
    const entries = statusEntries(found);
    if (entries.length === 0) return systemdDeclarations(props, found, []);
    const read = await remote.run('sh -s', readScript(entries), 'reads');
    const live = parseReadScript(read.stdout, entries);
    if (live === undefined) {
      throw new HandlerError('systemctl show gave no unit states', 'the host must run systemd', {
        Host: describeHost(target),
        Stderr: read.stderr.trim(),
      });
    }
    const unreadable = new Set(unreadableFiles(read.stdout, entries));
    return systemdDeclarations(props, found, live, unreadable, options.stackId);
  } finally {
    remote.close();
  }
};
