/**
 * The files systemd loaded a unit from: their digest and when they changed (unit-stale.ts), and
 * whether they are the ones the stack declares. A copy of a unit in a directory systemd ranks
 * higher (what `systemctl edit --full` leaves in /etc), a file of an instance's own name, or a
 * same-name drop-in ranked higher runs in its place while the declared file reads unchanged: the
 * plan was clean and the apply claimed success over it (an audit on systemd 252).
 */
import { sha256Hex } from '../core/canonical';
import { visible } from '../core/printable';
import { contentLine, othersReadOf } from './private-files';
import { UNIT_DIRECTORIES } from './unit-directories';
import { isMasked, type UnitStatus } from './unit-state';
import type { FileStat } from './file-stat';

/** The file an object has systemd load: a unit's own (its template's, for an instance), or a drop-in. */
export interface Declared {
  readonly as: 'unit' | 'drop-in';
  readonly path: string;
}

/**
 * systemd loads another file in the declared one's place; `by` names it when the read can tell which, `instance`
 * the instance it does so for when the declared file is its template's drop-in (template-drop-ins.ts).
 */
export interface Overridden {
  readonly declared: Declared;
  readonly by?: string;
  readonly instance?: string;
}

/**
 * `stat -L -c '%Z %d:%i s%s m%a %n'` lines by path, each dated by the later of its file's ctime and, from the `stat -c
 * 'l%Z %n'` lines, its own: a drop-in symlink pointed at an older file by hand (`ln -sfn`) changed what systemd
 * loads while `-L` dated the older file, and the plan was clean under a process started with the first (measured,
 * systemd 252).
 */
export const statsByPath = (text: string): Map<string, FileStat> => {
  const map = new Map<string, FileStat>();
  for (const [, time = '', file = '', bytes, mode, path = ''] of text.matchAll(
    /^(\d+(?:\.\d+)?) (\d+:\d+) (?:s(\d+) )?(?:m([0-7]+) )?(.*)$/gm,
  )) {
    const othersRead = othersReadOf(mode);
    map.set(path, {
      time: Number(time),
      file,
      ...(bytes === undefined ? {} : { bytes: Number(bytes) }),
      ...(othersRead === undefined ? {} : { othersRead }),
    });
  }
  for (const [, time = '', path = ''] of text.matchAll(/^l(\d+(?:\.\d+)?) (.*)$/gm)) {
    const found = map.get(path);
    if (found !== undefined) map.set(path, { ...found, time: Math.max(found.time, Number(time)) });
  }
  return map;
};

/**
 * The digest of the files a unit was loaded from, in systemd's order (each by its sha256, or its stamp where other
 * users may not read it: private-files.ts), and the newest of their ctimes but those systemd rewrites itself;
 * nothing when one of them was not read.
 */
export const loadedContent = (
  paths: readonly string[] | undefined,
  digests: ReadonlyMap<string, string>,
  stats: ReadonlyMap<string, FileStat>,
): { content?: string; contentChangedAt?: number } => {
  if (paths === undefined) return {};
  // A file systemd rewrites at each reload goes by its digest: its stamp would say every reload changed it.
  const lines = paths.map((path) =>
    contentLine(path, digests.get(path), REWRITTEN.test(path) ? undefined : stats.get(path)),
  );
  if (lines.length === 0 || lines.some((line) => line === undefined)) return {};
  const content = sha256Hex(lines.join(''));
  const dated = paths.filter((path) => !REWRITTEN.test(path));
  const times = dated.flatMap((path) => stats.get(path)?.time ?? []);
  return times.length === dated.length && times.length > 0
    ? { content, contentChangedAt: Math.max(...times) }
    : { content };
};

/** Where systemd itself rewrites files on every daemon-reload (generators) or start (transient units). */
const REWRITTEN = /^\/run\/systemd\/(generator(\.early|\.late)?|transient)\//;

/**
 * Two paths name one file when equal or when `stat -L` found them on one device and inode: /lib is
 * /usr/lib on a merged-/usr host, and systemd names a file by the search path it found it under
 * (FragmentPath=/lib/systemd/system/…, measured on Debian 12).
 */
const sameFile = (a: string, b: string, stats: ReadonlyMap<string, FileStat>): boolean =>
  a === b || (stats.has(a) && stats.get(a)?.file === stats.get(b)?.file);

/**
 * What systemd loads in place of `declared`, judged only while that file is on disk and the unit is
 * loaded and awaits no reload: `NeedDaemonReload=yes` is drift already, and the apply reads its
 * reload back. A masked unit is its own state.
 */
export const overriddenOf = (
  declared: Declared,
  status: UnitStatus,
  stats: ReadonlyMap<string, FileStat>,
): Overridden | undefined => {
  if (!stats.has(declared.path) || status.loadState !== 'loaded' || status.needDaemonReload) return undefined;
  if (isMasked(status)) return undefined;
  if (declared.as === 'unit') {
    const by = status.fragmentPath;
    return by === undefined || sameFile(by, declared.path, stats) ? undefined : { declared, by };
  }
  const dropIns = status.dropInPaths;
  if (dropIns === undefined || dropIns.some((path) => sameFile(path, declared.path, stats))) return undefined;
  // The same-name drop-in systemd ranked higher; none listed: a /dev/null link of that name masks it.
  const by = dropIns.find((path) => baseName(path) === baseName(declared.path));
  return by === undefined ? { declared } : { declared, by };
};

const baseName = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

/**
 * The unit directory to declare so the stack writes the file systemd loads: only where that file has
 * the declared one's name (an instance's own file does not) and sits where a unit or drop-in may be declared.
 */
const directoryToDeclare = ({ declared, by }: Overridden): string | undefined => {
  if (by === undefined) return undefined;
  const depth = declared.as === 'unit' ? 1 : 2;
  const directory = by.split('/').slice(0, -depth).join('/');
  const tail = declared.path.split('/').slice(-depth).join('/');
  if (`${directory}/${tail}` !== by) return undefined;
  return UNIT_DIRECTORIES.some((known) => known === directory) ? directory : undefined;
};

/** The plan's and the apply's words: what systemd loads instead, that the stack does not manage it, what to do. */
export const overriddenWords = (overridden: Overridden): string => {
  const { declared, by, instance } = overridden;
  const of = instance === undefined ? '' : ` for ${instance}`;
  if (by === undefined) {
    const masked = 'a file of its name ranked higher (a /dev/null link) masks it';
    return `systemd does not load ${declared.path}${of}: ${masked}; remove that file`;
  }
  const directory = directoryToDeclare(overridden);
  const fix = directory === undefined ? 'remove it' : `remove it, or declare directory ${directory}`;
  return `systemd loads ${visible(by)}${of} instead of ${declared.path}, a file the stack does not manage: ${fix}`;
};

/**
 * The summary's words for it: a unit's own file (an instance's template's) is shadowed, a drop-in overridden; the
 * apply refuses either (unit-refusal.ts), which the plan's line says too.
 */
export const overriddenPart = (overridden: Overridden | undefined): string | undefined =>
  overridden === undefined
    ? undefined
    : `${overridden.declared.as === 'unit' ? 'shadowed' : 'overridden'}: ${overriddenWords(overridden)}; ` +
      'the apply refuses it until then';

/** The diff's field for it, which the summary names in words. */
export const overriddenDiff = (overridden: Overridden | undefined): Record<string, { live: unknown; want: unknown }> =>
  overridden === undefined ? {} : { loaded: { live: overridden.by ?? null, want: overridden.declared.path } };

export const OVERRIDDEN_FIELD = 'loaded';
