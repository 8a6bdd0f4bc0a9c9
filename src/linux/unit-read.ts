/**
 * The read of every declared unit (or drop-in) on a host in one shell round trip: one `systemctl show` for all of them,
 * then the file digests and the recorded restartOn digests, then one `systemctl list-unit-files` for whether each is
 * enabled, and one `find` and `awk` for its links against its [Install] (links-command.ts). The script goes over
 * stdin, so hundreds of units never meet the kernel's 128 KiB limit on one argument.
 *
 * Enablement comes from `list-unit-files`, which reads the links on disk each time, not from `show`: pid 1 keeps a
 * loaded unit's UnitFileState from its first look until a daemon-reload, so a wants link removed by hand read `enabled`
 * (NeedDaemonReload=no) and the plan was clean while the unit would no longer start at boot (measured, systemd 252;
 * `list-unit-files` said `disabled`, one call for 200 names about 50 ms with the SSH round trip). An instance has no
 * unit file of its own, so `list-unit-files` does not list it: one `systemctl is-enabled` of all instances answers for
 * them (it stops at the first name it cannot answer, whose template is gone: from there on `show`'s state stays).
 */
import { quote } from './shell';
import type { LiveUnit } from './unit-control';
import { parseIntent, parseRecord } from './unit-intent';
import { type Declared, loadedContent, overriddenOf, statsByPath } from './unit-loaded';
import { byIndex, digestsByPath } from './read-lines';
import { LINKS_COMMAND, MANAGER_LINKS_COMMAND } from './links-command';
import { readLinks } from './unit-links';
import { parseFacts } from './unit-facts';
import { instanceOf, isTemplate } from './unit-name';
import { LOADED_PATHS } from './shown-paths';
import { parseShow, SHOW_PROPERTIES, type UnitStatus } from './unit-state';
import { templatePaths, templateStatus, UNLOADED_DROP_INS, withUnloadedDropIns } from './unloaded-drop-ins';
import { withReplacedForInstances } from './template-drop-ins';
import { linkedFilesCommand, withLinkedFiles } from './unit-linked-file';

/** One thing to read: the unit systemd reports on, and the files whose digest or text we want. */
export interface ReadEntry {
  /** The unit to show; a template is answered by `list-unit-files` alone, since `show` refuses its name. */
  readonly unit: string;
  /** A file whose sha256 is read (the unit file, a drop-in); none for an instance. */
  readonly file?: string;
  /** A file of at most 256 bytes whose text is read (the record: restartOn digest or mark, unit-intent.ts). */
  readonly record?: string;
  /** The object's intent, when an apply left one (unit-intent.ts); readable like the record. */
  readonly intent?: string;
  /** The file systemd must load for the object, checked against what it loads (unit-loaded.ts). */
  readonly declared?: Declared;
  /** Its declared text names UpheldBy=: the read reads the host's systemd version (MANAGER_LINKS_COMMAND). */
  readonly manager?: boolean;
}

const MARK = {
  files: '@@cdktf-homelab:files',
  stats: '@@cdktf-homelab:stats',
  records: '@@cdktf-homelab:restart-on',
  intents: '@@cdktf-homelab:intents',
  unitFiles: '@@cdktf-homelab:unit-files',
  symlinks: '@@cdktf-homelab:symlinks',
  instances: '@@cdktf-homelab:instances',
  links: '@@cdktf-homelab:links',
  now: '@@cdktf-homelab:now',
  unreadable: '@@cdktf-homelab:unreadable',
} as const;

/** The shell script (for `sh -s`) that reads `entries`. */
export const readScript = (entries: readonly ReadEntry[]): string => {
  const shown = entries.filter((entry) => !isTemplate(entry.unit)).map((entry) => quote(entry.unit));
  return [
    // `systemctl show` with no unit shows the manager itself, so it runs only when there are units.
    // Kept, so that the files systemd loaded each unit from are digested below with the declared ones.
    `s=$(${shown.length > 0 ? showCommand(shown) : 'true'})`,
    `printf '%s\\n' "$s"`,
    `echo ${MARK.files}`,
    UNLOADED_DROP_INS,
    // One sha256sum for every file (measured: a fork per file was 1.5 s of a 1.8 s read of 200 units).
    // Split on newlines alone, no glob: a drop-in's name may hold a space, a tab, a quote or a `*`.
    `set -f; IFS=$(printf '\\n.'); IFS=\${IFS%.}; set -- ${digestedPaths(entries).map(quote).join(' ')} ` +
      `${LOADED_PATHS} $m; unset IFS; set +f; ${REGULAR_FILES}`,
    '[ $# -eq 0 ] || sha256sum -- "$@" 2>/dev/null',
    `echo ${MARK.stats}`,
    // The ctime says when a file last changed; `cp -p`, `rsync -a` and `tar x` set an mtime back, never
    // a ctime. The device and inode tell whether two paths are one file (unit-loaded.ts). A symlink's own
    // ctime too (`l`): one pointed at an older file changed what systemd loads, and `-L` dates the older file.
    // To the nanosecond (`%.9Z`: GNU stat, coreutils 9.1 on the test host; whole seconds from a stat without it parse).
    '[ $# -eq 0 ] || { stat -L -c \'%.9Z %d:%i %n\' -- "$@"; stat -c \'l%.9Z %n\' -- "$@"; } 2>/dev/null',
    `echo ${MARK.links}`,
    linkedUnits(entries).length === 0
      ? 'true'
      : entries.some((entry) => entry.manager === true)
        ? MANAGER_LINKS_COMMAND
        : LINKS_COMMAND,
    `echo ${MARK.records}`,
    firstLines(entries.map((entry) => entry.record)),
    `echo ${MARK.intents}`,
    firstLines(entries.map((entry) => entry.intent)),
    `echo ${MARK.unitFiles}`,
    unitFilesCommand(entries),
    `echo ${MARK.instances}`,
    instancesCommand(entries),
    `echo ${MARK.symlinks}`,
    linkedFilesCommand(entries),
    `echo ${MARK.now}; date -u +%s`,
    `echo ${MARK.unreadable}`,
    unreadableCheck(entries),
    '',
  ].join('\n');
};

const PROPERTIES = SHOW_PROPERTIES.join(',');

/** Whole seconds from `since` (to the microsecond) to the host's `now` (whole seconds), when both are known. */
const secondsSince = (since: number | undefined, now: number): number | undefined =>
  since !== undefined && Number.isFinite(now) && now > 0 ? Math.max(0, Math.floor(now - since)) : undefined;

/**
 * `systemctl show` of the quoted `units`, its timestamps to the microsecond (`--timestamp=us+utc`): in whole
 * seconds, content changed in the second of a restart by hand read in sync under the process started before it
 * (measured, systemd 252: contract systemd-stale.test.ts). A systemctl without the option (before 248) fails it, and
 * the plain form runs instead: under TZ=UTC its timestamps end in "UTC" on every version.
 */
const showCommand = (units: readonly string[]): string => {
  const show = `TZ=UTC LC_ALL=C systemctl show -p ${PROPERTIES}`;
  const names = `-- ${units.join(' ')}`;
  return `${show} --timestamp=us+utc ${names} 2>/dev/null || ${show} ${names}`;
};

/**
 * Keeps the regular files of "$@" (a FIFO or a device there would hang sha256sum) in one pass that notes each
 * one's index, then one `set` of them: `set -- "$@" "$f"` a file copied every kept one before it, quadratic
 * in dash (measured: 25-35 against 5-9 CPU-ms for 400 paths, 200 units' files and their FragmentPaths).
 * What eval reads is `"${<index>}"` words alone, never a path.
 */
const REGULAR_FILES = 'k=; i=0; for f; do i=$((i+1)); [ -f "$f" ] && k="$k \\"\\${$i}\\""; done; eval "set -- $k"';

/**
 * Each record's or intent's first line, its first 256 bytes, after its index: shell builtins alone (`read`,
 * printf's precision), where `$(head -c 256 "$f")` started a process a file. Measured on the test host
 * (systemd 252, dash, 200 units with records): the script took 560-590 ms with head, 330-360 ms so. A
 * record and an intent are one line (unit-intent.ts); a line after the first, which could pose as another
 * entry's, is not printed.
 */
const firstLines = (paths: ReadonlyArray<string | undefined>): string =>
  `i=0; for f in ${paths.map((path) => quote(path ?? '')).join(' ')}; do if [ -n "$f" ] && [ -f "$f" ]; then ` +
  `l=; IFS= read -r l < "$f"; printf '%s %.256s\\n' "$i" "$l"; fi; i=$((i+1)); done`;

/**
 * `list-unit-files` of every entry that has a unit file of its own (all but instances), each name a
 * glob that matches itself alone (a `\\` escape is a glob's escape too); nothing when there is none,
 * since with no name it lists every unit file. It exits 1 when it lists none: that is not an error.
 */
const unitFilesCommand = (entries: readonly ReadEntry[]): string => {
  const globs = unitsOf(entries, false).map((name) => quote(name.replace(/[\\*?[]/g, (c) => `\\${c}`)));
  return globs.length === 0
    ? 'true'
    : `systemctl list-unit-files --no-legend --no-pager -- ${globs.join(' ')} 2>/dev/null`;
};

/** The units of `entries` that are instances (or those that are not), each once, in order: `is-enabled` answers so. */
const unitsOf = (entries: readonly ReadEntry[], instances: boolean): string[] => [
  ...new Set(entries.map((entry) => entry.unit).filter((unit) => (instanceOf(unit) !== undefined) === instances)),
];

const instancesCommand = (entries: readonly ReadEntry[]): string => {
  const names = unitsOf(entries, true).map(quote);
  return names.length === 0 ? 'true' : `systemctl is-enabled -- ${names.join(' ')} 2>/dev/null`;
};

/** Every file the read compares: unit files and drop-ins, then the marks (records), then intents. */
const comparedPaths = (entries: readonly ReadEntry[]): string[] => [
  ...filePaths(entries),
  ...entries.flatMap((entry) => (entry.record === undefined ? [] : [entry.record])),
  ...entries.flatMap((entry) => (entry.intent === undefined ? [] : [entry.intent])),
];

/**
 * Prints the index (in `comparedPaths`) of each file that may be there but that this login cannot
 * read: a file it may not open, or one whose nearest existing directory above it (at any depth: a
 * drop-in's mark sits five below /var/lib/cdktf-homelab/drop-ins) it may not search. Without it, a
 * plain read user would take a root-only file for an absent one, and a hidden mark for a foreign
 * object (issue 27). Shell builtins only: no fork per file.
 */
const unreadableCheck = (entries: readonly ReadEntry[]): string =>
  `i=0; for f in ${comparedPaths(entries).map(quote).join(' ')}; do ` +
  'if [ -f "$f" ]; then [ -r "$f" ] || echo "$i"; ' +
  'else d=${f%/*}; while [ -n "$d" ] && ! [ -d "$d" ]; do d=${d%/*}; done; [ -x "${d:-/}" ] || echo "$i"; fi; ' +
  'i=$((i+1)); done';

/** The files of `entries` the read found there but could not read (permission denied), in order. */
export const unreadableFiles = (stdout: string, entries: readonly ReadEntry[]): string[] => {
  const [, section = ''] = splitOnce(stdout, `${MARK.unreadable}\n`);
  const paths = comparedPaths(entries);
  return section
    .split('\n')
    .filter((line) => /^\d+$/.test(line))
    .flatMap((line) => paths[Number(line)] ?? []);
};

/**
 * Each entry's live state, in the order given; undefined when systemctl printed no unit (no systemd). A template's
 * drop-in is judged against the instances read with it (template-drop-ins.ts).
 */
export const parseReadScript = (stdout: string, entries: readonly ReadEntry[]): LiveUnit[] | undefined => {
  const pieces = stdout.split(/^(@@cdktf-homelab:[a-z-]+)\n/m);
  const part = (mark: string) => pieces[pieces.indexOf(mark) + 1] ?? '';
  const show = pieces[0] ?? '';
  const [files = '', statText = '', records = '', intentText = '', unitFiles = '', instanceText = '', nowText = ''] = [
    MARK.files,
    MARK.stats,
    MARK.records,
    MARK.intents,
    MARK.unitFiles,
    MARK.instances,
    MARK.now,
  ].map((mark): string => (pieces.includes(mark) ? part(mark) : ''));
  const { links, managerVersion } = linksRead(entries, pieces.includes(MARK.links) ? part(MARK.links) : undefined);
  const read = { digests: digestsByPath(files), managerVersion };
  const blocks = show.split(/\n\s*\n/).filter((block) => block.trim() !== '');
  if (blocks.length !== entries.filter((entry) => !isTemplate(entry.unit)).length) return undefined;
  const statuses = blocks.map(parseShow);
  if (statuses.some((status) => status.loadState === '')) return undefined;
  const { digests } = read;
  const stats = statsByPath(statText);
  const recorded = byIndex(records, (rest) => rest.trim());
  const intents = byIndex(intentText, (rest) => rest.trim());
  const enablement = enablementByName(entries, unitFiles, instanceText);
  const now = Number(nowText.trim());
  let next = 0;
  const live = entries.flatMap((entry, index): LiveUnit[] => {
    const fileSha256 = entry.file === undefined ? undefined : digests.get(entry.file);
    const listed = enablement.get(entry.unit);
    const found = (path: string) => stats.has(path);
    const shown = isTemplate(entry.unit)
      ? templateStatus(entry.unit, fileSha256, listed ?? '', found)
      : statuses[next++];
    if (shown === undefined) return [];
    const status = statusOf(entry.unit, onDisk(shown, listed), read);
    const stateSeconds = secondsSince(status.stateSince, now);
    const record = recorded.get(index);
    const { first, startedWith, stack } = parseRecord(record ?? '');
    const intent = intents.get(index);
    const overridden = entry.declared === undefined ? undefined : overriddenOf(entry.declared, status, stats);
    return [
      {
        status,
        fileSha256,
        restartOn: record === undefined ? undefined : first,
        ...(stack === undefined ? {} : { recordStack: stack }),
        ...(stateSeconds === undefined ? {} : { stateSeconds }),
        ...(startedWith === undefined ? {} : { startedWith }),
        // Any file there is an intent: one that does not parse still proves the object the stack's.
        ...(intent === undefined ? {} : { intent: parseIntent(intent) ?? { since: 0, restart: true } }),
        ...loadedContent(status.contentPaths, digests, stats),
        ...(overridden === undefined ? {} : { overridden }),
        ...linksOfEntry(entry, status, links, digests),
      },
    ];
  });
  // Each unit but a template has its `show` block: the blocks were counted above.
  const judged = live.length === entries.length ? withReplacedForInstances(entries, live, stats) : undefined;
  return judged && withLinkedFiles(entries, judged, pieces.includes(MARK.symlinks) ? part(MARK.symlinks) : '');
};

/** `show`'s status with the disk's enablement (`listed`), keeping pid1's own when they differ (unit-state.ts). */
const onDisk = (shown: UnitStatus, listed: string | undefined): UnitStatus =>
  listed === undefined || listed === shown.unitFileState
    ? shown
    : { ...shown, unitFileState: listed, shownUnitFileState: shown.unitFileState };

/** A unit's status with the drop-ins systemd has not loaded (unloaded-drop-ins.ts) and the host's systemd version. */
const statusOf = (
  unit: string,
  loaded: UnitStatus,
  { digests, managerVersion }: { readonly digests: ReadonlyMap<string, string>; readonly managerVersion?: number },
): UnitStatus => {
  const unloaded = withUnloadedDropIns(unit, loaded, digests);
  return managerVersion === undefined ? unloaded : { ...unloaded, managerVersion };
};

/** The links read's answer: each unit's links (unit-links.ts) and the host's systemd version, when read. */
const linksRead = (entries: readonly ReadEntry[], text: string | undefined) =>
  text === undefined
    ? { links: undefined, managerVersion: undefined }
    : { links: readLinks(linkedUnits(entries), text), managerVersion: parseFacts(text)?.version };

/** Each unit's state as `list-unit-files` lists it, and each instance's as `is-enabled` answered, in order. */
const enablementByName = (entries: readonly ReadEntry[], unitFiles: string, instanceText: string) => {
  const answered = instanceText.split('\n').filter((line) => /^[a-z-]+$/.test(line));
  return new Map([
    ...statesByName(unitFiles),
    ...unitsOf(entries, true).flatMap((name, index) =>
      answered[index] === undefined ? [] : [[name, answered[index]] as const],
    ),
  ]);
};

/** `list-unit-files` lines (`<name> <state> <preset>`) by name. */
const statesByName = (text: string): Map<string, string> =>
  new Map([...text.matchAll(/^(\S+)[ \t]+(\S+)/gm)].map((match) => [match[1] ?? '', match[2] ?? '']));

/** A unit's or instance's links (unit-links.ts), from the files it was loaded from: its file, then its drop-ins. */
const linksOfEntry = (
  { unit, declared }: ReadEntry,
  status: UnitStatus,
  links: ReturnType<typeof readLinks> | undefined,
  digests: ReadonlyMap<string, string>,
) =>
  declared?.as === 'unit' && links !== undefined
    ? { links: links(unit, [declared.path, ...(status.dropInPaths ?? [])], (path) => digests.has(path)) }
    : {};

/** The units whose links are read (unit-links.ts), each once; a drop-in's unit is read by its own object. */
const linkedUnits = (entries: readonly ReadEntry[]): string[] => [
  ...new Set(entries.flatMap((entry) => (entry.declared?.as === 'unit' ? [entry.unit] : []))),
];

const filePaths = (entries: readonly ReadEntry[]): string[] =>
  entries.flatMap((entry) => (entry.file === undefined ? [] : [entry.file]));

/** The files read, each once: the entries' own, those systemd must load (an instance's template's), a template's. */
const digestedPaths = (entries: readonly ReadEntry[]): string[] => [
  ...new Set([
    ...filePaths(entries),
    ...entries.flatMap((entry) => [entry.declared?.path ?? [], templatePaths(entry.unit)].flat()),
  ]),
];

const splitOnce = (text: string, mark: string): [string, string] => {
  const at = text.indexOf(mark);
  return at < 0 ? [text, ''] : [text.slice(0, at), text.slice(at + mark.length)];
};
