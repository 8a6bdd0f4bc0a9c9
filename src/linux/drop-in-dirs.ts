/**
 * When a unit's content last changed, counting the drop-ins taken away: a drop-in removed (or renamed out of
 * `*.conf`) leaves no file to date, only its `.d/` directory's ctime. Without it, a host drop-in removed by hand
 * under a process started with it read in sync (every file left older than the process), reloaded or not, and the
 * apply left the process running the removed content (measured, systemd 252: systemd-removed-drop-in.test.ts).
 */
import { quote } from './shell';
import { DROP_IN_SEARCH, UNIT_FILE_SEARCH } from './unit-directories';
import type { FileStat } from './file-stat';
import { loadedContent } from './unit-loaded';
import { dropInNames } from './unloaded-drop-ins';
import type { UnitStatus } from './unit-state';

/**
 * The read's line (in its stats section) that dates the `.d/` directories `UNLOADED_DROP_INS` found, which it lists in
 * `$m` with a trailing `/` (the regular-file filter leaves them out of the digests), and the unit directories (their
 * modes for private-files.ts; no `.d/` name, so no unit's date): `d<ctime> m<mode> <path>` each.
 */
export const DROP_IN_DIR_STATS =
  `e=$(printf '%s\\n' "$m" | sed -n 's,/$,,p'); (set -f; IFS=$(printf '\\n.'); IFS=\${IFS%.}; ` +
  `stat -c 'd%.9Z m%a %n' -- $e ${UNIT_FILE_SEARCH.map(quote).join(' ')}) 2>/dev/null`;

/** The `DROP_IN_DIR_STATS` lines by path. */
export const dirTimesByPath = (text: string): Map<string, number> =>
  new Map(
    [...text.matchAll(/^d(\d+(?:\.\d+)?) (?:m[0-7]+ )?(.*)$/gm)].map((match) => [match[2] ?? '', Number(match[1])]),
  );

/**
 * The newest ctime of the `.d/` directories systemd searches for a unit known by `known` (its name, then its
 * aliases'): its own, its template's, its prefixes' and its type's, in each of DROP_IN_SEARCH. Any entry made,
 * removed or renamed there after a process started may change what that process would run now; a file added in
 * one dates itself too. An editor's swap file costs one restart, never a lie (reasoned).
 */
export const dropInDirsChangedAt = (
  known: readonly string[],
  times: ReadonlyMap<string, number>,
): number | undefined => {
  const searched = known.map(dropInNames);
  const names = [...new Set([...searched.flatMap((each) => each.names), ...searched.map((each) => each.type)])];
  const dirs = DROP_IN_SEARCH.flatMap((directory) => names.map((name) => `${directory}/${name}.d`));
  const found = dirs.flatMap((dir) => times.get(dir) ?? []);
  return found.length === 0 ? undefined : Math.max(...found);
};

/** `content` dated no earlier than the unit's drop-in directories last changed, when both are known. */
export const withDirsChangedAt = <T extends { readonly content?: string; readonly contentChangedAt?: number }>(
  content: T,
  dirsChangedAt: number | undefined,
): T =>
  content.contentChangedAt === undefined || dirsChangedAt === undefined
    ? content
    : { ...content, contentChangedAt: Math.max(content.contentChangedAt, dirsChangedAt) };

/**
 * The files systemd will load the unit from after a reload: while it awaits one (NeedDaemonReload=yes), a drop-in
 * it loaded and that is no longer on disk (neither digested nor dated) is gone at the reload, and the content the
 * plan judges is the one left. Without a reload pending, every path stays: one not read is "cannot tell".
 */
export const pathsAfterReload = (
  status: UnitStatus,
  digests: ReadonlyMap<string, string>,
  stats: ReadonlyMap<string, FileStat>,
) =>
  status.needDaemonReload
    ? status.contentPaths?.filter((path) => digests.has(path) || stats.has(path))
    : status.contentPaths;

/** The digest and date of what the unit runs once reloaded (unit-loaded.ts `loadedContent`), its directories dated. */
export const loadedContentOf = (
  unit: string,
  status: UnitStatus,
  read: {
    readonly digests: ReadonlyMap<string, string>;
    readonly stats: ReadonlyMap<string, FileStat>;
    readonly dirTimes: ReadonlyMap<string, number>;
  },
) =>
  withDirsChangedAt(
    loadedContent(pathsAfterReload(status, read.digests, read.stats), read.digests, read.stats),
    dropInDirsChangedAt([unit, ...(status.names ?? [])], read.dirTimes),
  );
