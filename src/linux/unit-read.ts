/**
 * The read of every declared unit (or drop-in) on a host in one shell round trip: one `systemctl show` for all of them,
 * then the file digests and the recorded restartOn digests, then one `systemctl list-unit-files` for whether each is
 * enabled, and one `find` and `awk` for its links against its [Install] (links-command.ts). The script goes over
 * stdin, so hundreds of units never meet the kernel's 128 KiB limit on one argument. This file builds the script;
 * unit-read-answer.ts parses its answer.
 *
 * Enablement comes from `list-unit-files`, which reads the links on disk each time, not from `show`: pid 1 keeps a
 * loaded unit's UnitFileState from its first look until a daemon-reload, so a wants link removed by hand read `enabled`
 * (NeedDaemonReload=no) and the plan was clean while the unit would no longer start at boot (measured, systemd 252;
 * `list-unit-files` said `disabled`, one call for 200 names about 50 ms with the SSH round trip). An instance has no
 * unit file of its own, so `list-unit-files` does not list it: one `systemctl is-enabled` of all instances answers for
 * them (it stops at the first name it cannot answer, whose template is gone: from there on `show`'s state stays).
 */
import { quote } from './shell';
import type { Declared } from './unit-loaded';
import { LINKS_COMMAND, MANAGER_LINKS_COMMAND } from './links-command';
import { instanceOf, isTemplate } from './unit-name';
import { LOADED_PATHS } from './shown-paths';
import { SHOW_PROPERTIES } from './unit-state';
import { templatePaths, UNLOADED_DROP_INS } from './unloaded-drop-ins';
import { linkedFilesCommand } from './unit-linked-file';
import { DROP_IN_DIR_STATS } from './drop-in-dirs';
import { DROP_IN_MARKS } from './drop-in-marks';
import { REMOVED_DROP_INS } from './drop-in-traces';
import { declaredTemplates, instanceGlob } from './template-runs';

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

/** The marks that open each section of the script's answer (unit-read-answer.ts splits on them). */
export const READ_MARK = {
  files: '@@cdktf-homelab:files',
  stats: '@@cdktf-homelab:stats',
  dropInMarks: '@@cdktf-homelab:drop-in-marks',
  records: '@@cdktf-homelab:restart-on',
  intents: '@@cdktf-homelab:intents',
  unitFiles: '@@cdktf-homelab:unit-files',
  symlinks: '@@cdktf-homelab:symlinks',
  instances: '@@cdktf-homelab:instances',
  links: '@@cdktf-homelab:links',
  now: '@@cdktf-homelab:now',
  runs: '@@cdktf-homelab:template-runs',
  unreadable: '@@cdktf-homelab:unreadable',
  removed: '@@cdktf-homelab:removed-drop-ins',
} as const;

/** The shell script (for `sh -s`) that reads `entries`; with `removed`, a batch apply's: the drop-in traces too. */
export const readScript = (entries: readonly ReadEntry[], { removed = false } = {}): string => {
  const shown = entries.filter((entry) => !isTemplate(entry.unit)).map((entry) => quote(entry.unit));
  return [
    // `systemctl show` with no unit shows the manager itself, so it runs only when there are units.
    // Kept, so that the files systemd loaded each unit from are digested below with the declared ones.
    `s=$(${shown.length > 0 ? showCommand(shown) : 'true'})`,
    `printf '%s\\n' "$s"`,
    `echo ${READ_MARK.files}`,
    UNLOADED_DROP_INS,
    // One sha256sum for every file (measured: a fork per file was 1.5 s of a 1.8 s read of 200 units).
    // Split on newlines alone, no glob: a drop-in's name may hold a space, a tab, a quote or a `*`.
    `set -f; IFS=$(printf '\\n.'); IFS=\${IFS%.}; set -- ${digestedPaths(entries).map(quote).join(' ')} ` +
      `${LOADED_PATHS} $m; unset IFS; set +f; ${REGULAR_FILES}`,
    '[ $# -eq 0 ] || sha256sum -- "$@" 2>/dev/null',
    `echo ${READ_MARK.stats}`,
    // The ctime says when a file last changed; `cp -p`, `rsync -a` and `tar x` set an mtime back, never
    // a ctime. The device and inode tell whether two paths are one file (unit-loaded.ts). A symlink's own
    // ctime too (`l`): one pointed at an older file changed what systemd loads, and `-L` dates the older file.
    // The size (`s%s`) tells an edit in the same instant apart: unit-basis.ts holds a file by these, never by a
    // digest of its content; the mode (`m%a`), whether the record may hold its digest (private-files.ts). To the
    // nanosecond (`%.9Z`: GNU stat, coreutils 9.1 on the test host; whole seconds from a stat without it parse).
    '[ $# -eq 0 ] || { stat -L -c \'%.9Z %d:%i s%s m%a %n\' -- "$@"; stat -c \'l%.9Z %n\' -- "$@"; } 2>/dev/null',
    DROP_IN_DIR_STATS,
    `echo ${READ_MARK.dropInMarks}`,
    DROP_IN_MARKS,
    `echo ${READ_MARK.links}`,
    linkedUnits(entries).length === 0
      ? 'true'
      : entries.some((entry) => entry.manager === true)
        ? MANAGER_LINKS_COMMAND
        : LINKS_COMMAND,
    `echo ${READ_MARK.records}`,
    firstLines(entries.map((entry) => entry.record)),
    `echo ${READ_MARK.intents}`,
    firstLines(entries.map((entry) => entry.intent)),
    `echo ${READ_MARK.unitFiles}`,
    unitFilesCommand(entries),
    `echo ${READ_MARK.instances}`,
    instancesCommand(entries),
    `echo ${READ_MARK.symlinks}`,
    linkedFilesCommand(entries),
    `echo ${READ_MARK.runs}`,
    templateRunsCommand(entries),
    ...(removed ? [`echo ${READ_MARK.removed}`, REMOVED_DROP_INS] : []),
    `echo ${READ_MARK.now}; date -u +%s.%N`,
    `echo ${READ_MARK.unreadable}`,
    unreadableCheck(entries),
    '',
  ].join('\n');
};

const PROPERTIES = SHOW_PROPERTIES.join(',');

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

/** `show` of the loaded instances of the templates whose file or drop-ins are read (template-runs.ts), by glob. */
const templateRunsCommand = (entries: readonly ReadEntry[]): string => {
  const globs = declaredTemplates(entries).map(instanceGlob);
  return globs.length === 0 ? 'true' : showCommand(globs);
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
export const unitsOf = (entries: readonly ReadEntry[], instances: boolean): string[] => [
  ...new Set(entries.map((entry) => entry.unit).filter((unit) => (instanceOf(unit) !== undefined) === instances)),
];

const instancesCommand = (entries: readonly ReadEntry[]): string => {
  const names = unitsOf(entries, true).map(quote);
  return names.length === 0 ? 'true' : `systemctl is-enabled -- ${names.join(' ')} 2>/dev/null`;
};

/** Every file the read compares: unit files and drop-ins, then the marks (records), then intents. */
export const comparedPaths = (entries: readonly ReadEntry[]): string[] => [
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

/** The units whose links are read (unit-links.ts), each once; a drop-in's unit is read by its own object. */
export const linkedUnits = (entries: readonly ReadEntry[]): string[] => [
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
