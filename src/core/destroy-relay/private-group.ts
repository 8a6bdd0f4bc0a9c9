/**
 * Whether the group that may write Terraform's data dir is the user's alone, so the relay may live there
 * (run.ts `relayDirectory`). The Node hook took a data dir its own primary group may write as safe, which holds
 * where each user has a group of their own (Debian's and Fedora's user private groups; Fedora's umask 002 makes
 * `.terraform` 0775) but not where users share one (`users`, gid 100): a member could swap the relay folder between
 * the hook's check and its connect, and answer its destroy with a leader of their own (an audit, 2026-12-07; the sh
 * hook already refused any group-writable data dir). Read from the local files alone: a group only a directory
 * service knows is not known to be private, and the hooks then destroy each alone, as for a data dir others may write.
 */
import { userInfo } from 'node:os';
import { readBoundedFile } from '../bounded-file';

/** The fields of each `name:...` line of a colon-separated file (/etc/group, /etc/passwd). */
const records = (text: string): string[][] =>
  text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => line.split(':'));

const idIs = (field: string | undefined, id: number): boolean =>
  field !== undefined && /^\d+$/.test(field) && Number(field) === id;

/**
 * True when `gid` is one group named `user` with no members listed, and `user` is the only account whose primary
 * group it is.
 */
export const isPrivateGroup = (gid: number, user: string, groupText: string, passwdText: string): boolean => {
  const groups = records(groupText).filter((fields) => idIs(fields[2], gid));
  const [group] = groups;
  if (groups.length !== 1 || group === undefined || group[0] !== user || (group[3] ?? '').trim() !== '') return false;
  const primary = records(passwdText).filter((fields) => idIs(fields[3], gid));
  return primary.length === 1 && primary[0]?.[0] === user;
};

/** Files larger than this are not read (a local /etc/passwd of 10,000 accounts is about 600 KiB). */
const MAX_BYTES = 4 << 20;

/** `isPrivateGroup` for this process's user, from /etc/group and /etc/passwd; false when either cannot be read. */
export const localPrivateGroup = (gid: number): boolean => {
  try {
    const read = (path: string) => readBoundedFile(path, MAX_BYTES, 100).toString('utf8');
    return isPrivateGroup(gid, userInfo().username, read('/etc/group'), read('/etc/passwd'));
  } catch {
    return false;
  }
};
