// A host's unit files as discover reads them, for the tests that build declarations from a few files.
import { sha256Hex } from '../../../../src/core/canonical';
import { parseListing } from '../../../../src/discover/host-listing';
import { hostCandidates, statusEntries } from '../../../../src/discover/systemd';
import type { LiveUnit } from '../../../../src/linux/unit-control';

const base64 = (text: string) => Buffer.from(text).toString('base64');

/**
 * The candidates of `files` (a path below /etc/systemd/system and its text) and each one's live state: `status`,
 * its file's digest, and what `extra` gives its path (a record, a mark, an intent).
 */
export const hostFiles = (
  files: Readonly<Record<string, string>>,
  status: LiveUnit['status'],
  extra: (path: string) => Partial<LiveUnit> = () => ({}),
) => {
  const listing = parseListing(
    Object.entries(files)
      .map(([path, text]) => `F ${base64(path)} ${base64(text)}`)
      .join('\n'),
  );
  const found = hostCandidates(listing, () => true);
  const live = statusEntries(found).map((entry): LiveUnit => {
    const path = entry.file?.replace(/^.*system\//, '') ?? entry.unit;
    return { status, fileSha256: sha256Hex(files[path] ?? ''), restartOn: undefined, ...extra(path) };
  });
  return { found, live };
};
