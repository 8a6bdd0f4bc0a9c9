/**
 * How a unit's or drop-in's basis (unit-basis.ts) holds the object's own file: by its stamp, never by a digest of its
 * content, which the basis carries into the Terraform state, where a file edited by hand (`Environment=TOKEN=...`)
 * could have its content guessed and tested offline; and how a basis an earlier version wrote (by the file's sha256)
 * is still compared, so a plan made before an upgrade applies after it.
 */
import { digestOf } from '../core/canonical';
import type { LiveUnit } from './unit-control';

/** What the basis holds of a file the login could not stat. */
export const UNSEEN = '?';

/** After `unit read ` or `drop-in read ` (unit-basis.ts) in a basis of this version: its file is in it by stamp. */
export const BY_STAMP = 'by stamp ';

/** How a reading holds the object's own file: unset when there is none. */
export type FileOf = (live: LiveUnit) => string | null;

/**
 * The file by its stamp (ctime, device:inode, size; `?` when the read could not stat it): an edit, a replacement or
 * a link pointed elsewhere reads otherwise, and no digest of its content, which may hold a secret, reaches the state.
 */
export const byStamp: FileOf = ({ fileSha256, fileStat }) =>
  fileSha256 === undefined
    ? null
    : fileStat === undefined
      ? UNSEEN
      : `${fileStat.time} ${fileStat.file} ${fileStat.bytes ?? UNSEEN}`;

/** By its content's digest, as an earlier version's basis held it: read only to compare with such a basis. */
const byDigest: FileOf = (live) => live.fileSha256 ?? null;

/** How the plan's reading (`own`) holds the file, and the prefix its digest follows. */
export const formOf = (own: string, read: string): { readonly fileOf: FileOf; readonly prefix: string } =>
  own.startsWith(`${read}${BY_STAMP}`)
    ? { fileOf: byStamp, prefix: `${read}${BY_STAMP}` }
    : { fileOf: byDigest, prefix: read };

/** A drop-in as the basis holds it: a short digest of its path and stamp (`<ctime> <device:inode>`, or `UNSEEN`). */
export const stampDigest = ([path, stamp]: readonly [string, string]): string => digestOf([path, stamp]).slice(0, 12);
