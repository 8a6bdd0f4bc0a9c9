/**
 * The parse of the host read's answer (unit-read.ts builds the script): each declared unit's live state from its
 * sections, in the order declared, and the files the login could not read. Kept apart from the script so that
 * what is asked and how its answer is judged are each read whole; a section out of step with its mark would take
 * one unit's state for another's, and the plan would describe the wrong unit.
 */
import type { LiveUnit } from './unit-control';
import { parseIntent, parseRecord } from './unit-intent';
import { closedDirsOf, withClosedDirs } from './private-files';
import type { FileStat } from './file-stat';
import { overriddenOf, statsByPath } from './unit-loaded';
import { byIndex, digestsByPath, hostNow } from './read-lines';
import { readLinks } from './unit-links';
import { parseFacts } from './unit-facts';
import { isTemplate } from './unit-name';
import { parseShow, type UnitStatus } from './unit-state';
import { templateStatus, withUnloadedDropIns } from './unloaded-drop-ins';
import { withReplacedForInstances } from './template-drop-ins';
import { withLinkedFiles } from './unit-linked-file';
import { withTemplateRuns } from './template-runs';
import { dirTimesByPath, loadedContentOf } from './drop-in-dirs';
import { dropInStamps } from './unit-basis';
import { dropInMarksOf, marksByPath } from './drop-in-marks';
import { parseRemovedDropIns } from './drop-in-traces';
import { comparedPaths, linkedUnits, READ_MARK as MARK, type ReadEntry, unitsOf } from './unit-read';

/** Whole seconds from `since` to the host's `now` (each past the second where the host shows it), when both known. */
const secondsSince = (since: number | undefined, now: number): number | undefined =>
  since !== undefined && Number.isFinite(now) && now > 0 ? Math.max(0, Math.floor(now - since)) : undefined;

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
  const { show, section } = sectionsOf(stdout);
  const text = (mark: string): string => section(mark) ?? '';
  const [files = '', statText = '', records = '', intentText = '', unitFiles = '', instanceText = '', nowText = ''] = [
    MARK.files,
    MARK.stats,
    MARK.records,
    MARK.intents,
    MARK.unitFiles,
    MARK.instances,
    MARK.now,
  ].map(text);
  const { links, managerVersion } = linksRead(entries, section(MARK.links));
  const read = { digests: digestsByPath(files), managerVersion };
  const blocks = show.split(/\n\s*\n/).filter((block) => block.trim() !== '');
  if (blocks.length !== entries.filter((entry) => !isTemplate(entry.unit)).length) return undefined;
  const statuses = blocks.map(parseShow);
  if (statuses.some((status) => status.loadState === '')) return undefined;
  const { digests } = read;
  const stats = withClosedDirs(statsByPath(statText), closedDirsOf(statText));
  const dated = { digests, stats, dirTimes: dirTimesByPath(statText), ...marksRead(section) };
  const recorded = byIndex(records, (rest) => rest.trim());
  const intents = byIndex(intentText, (rest) => rest.trim());
  const enablement = enablementByName(entries, unitFiles, instanceText);
  const now = hostNow(nowText);
  let next = 0;
  const live = entries.flatMap((entry, index): LiveUnit[] => {
    const fileSha256 = entry.file === undefined ? undefined : digests.get(entry.file);
    const listed = enablement.get(entry.unit);
    const shown = isTemplate(entry.unit)
      ? templateStatus(entry.unit, fileSha256, listed ?? '', (path) => stats.has(path))
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
        ...filesRead(entry, fileSha256, status, dated),
        ...(overridden === undefined ? {} : { overridden }),
        ...linksOfEntry(entry, status, links, digests),
      },
    ];
  });
  // Each unit but a template has its `show` block: the blocks were counted above.
  const judged = live.length === entries.length ? withReplacedForInstances(entries, live, stats) : undefined;
  const linked = judged && withLinkedFiles(entries, judged, text(MARK.symlinks));
  return linked && withTemplateRuns(entries, linked, text(MARK.runs), stats);
};

/**
 * What the read holds of the files a unit is loaded from: its own file's stamp (when its sha256 was read too), their
 * content (drop-in-dirs.ts), its drop-ins' stamps.
 */
const filesRead = (
  { unit, file }: ReadEntry,
  sha256: string | undefined,
  status: UnitStatus,
  dated: Parameters<typeof loadedContentOf>[2] & ReturnType<typeof marksRead>,
) => ({
  ...fileStatOf(file === undefined || sha256 === undefined ? undefined : dated.stats.get(file)),
  ...loadedContentOf(unit, status, dated),
  ...dropInStamps(status, dated.stats),
  ...dropInMarksOf(status.dropInPaths ?? [], dated.marks),
  ...(dated.removals === undefined ? {} : { dropInRemovals: dated.removals }),
});

/** The drop-ins' marks, and where a batch apply read them, its traces and the marked ones gone (drop-in-traces.ts). */
const marksRead = (section: (mark: string) => string | undefined) => {
  const removed = section(MARK.removed);
  return {
    marks: marksByPath(section(MARK.dropInMarks) ?? ''),
    removals: removed === undefined ? undefined : parseRemovedDropIns(removed),
  };
};

const fileStatOf = (stat: FileStat | undefined) => (stat === undefined ? {} : { fileStat: stat });

/** The script's answer by section: `show`'s output first, then each mark's text (undefined when it never printed). */
const sectionsOf = (stdout: string) => {
  const pieces = stdout.split(/^(@@cdktf-homelab:[a-z-]+)\n/m);
  const section = (mark: string): string | undefined =>
    pieces.includes(mark) ? (pieces[pieces.indexOf(mark) + 1] ?? '') : undefined;
  return { show: pieces[0] ?? '', section };
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

const splitOnce = (text: string, mark: string): [string, string] => {
  const at = text.indexOf(mark);
  return at < 0 ? [text, ''] : [text.slice(0, at), text.slice(at + mark.length)];
};
