/**
 * systemd's unit directories, in one list, for every use: where a unit or drop-in may be declared (synth, the root
 * helper's `DIRS`, a shadow's "declare directory" hint), and where the read looks for a unit's files systemd has not
 * loaded (unloaded-drop-ins.ts). Three lists kept by hand for these drifted: the read's ranked /usr/lib over /lib,
 * which pid1 does the other way round, so a template's copy in /lib read as no shadow where its instances loaded it
 * (on a host whose /lib is no link to /usr/lib; reasoned, not measured).
 * The order is systemd 252's, highest rank first, as `systemd-analyze unit-paths` lists it for the system manager on
 * the test host (measured, systemd 252.39-1~deb12u2; systemd-shadow.test.ts checks it there):
 *   /etc/systemd/system.control /run/systemd/system.control /run/systemd/transient /run/systemd/generator.early
 *   /etc/systemd/system /etc/systemd/system.attached /run/systemd/system /run/systemd/system.attached
 *   /run/systemd/generator /usr/local/lib/systemd/system /lib/systemd/system /usr/lib/systemd/system
 *   /run/systemd/generator.late
 */

/** One directory of the search path. */
export interface UnitDirectory {
  readonly path: string;
  /** The read looks here for a not-loaded unit's drop-ins and a template's file (unloaded-drop-ins.ts). */
  readonly read: boolean;
  /**
   * The stack may write a unit or drop-in here; the number is its place in the list the root helper's `DIRS` and
   * synth's errors name, kept as it was so the helper's text, and so its version, stay the same. Absent for the
   * transient and generator directories, which systemd rewrites.
   */
  readonly write?: number;
  /**
   * The directory this one is on a merged-/usr host (/lib is a link to usr/lib), where pid1 names a drop-in found
   * here by that one's path (`DropInPaths=/usr/lib/…`) but a unit's file by this one's (`FragmentPath=/lib/…`),
   * measured on the test host: the read takes a drop-in found in both from that one, as systemd names it.
   */
  readonly mergedInto?: string;
}

/** systemd rewrites a generator's directory at each daemon-reload, so the read leaves them out (no hand copies). */
const GENERATED = { read: false } as const;

/** systemd 252's unit search path, system manager, highest rank first (measured: see above). */
export const UNIT_SEARCH_PATH: readonly UnitDirectory[] = [
  { path: '/etc/systemd/system.control', read: true, write: 2 },
  { path: '/run/systemd/system.control', read: true, write: 5 },
  { path: '/run/systemd/transient', read: true },
  { path: '/run/systemd/generator.early', ...GENERATED },
  { path: '/etc/systemd/system', read: true, write: 1 },
  { path: '/etc/systemd/system.attached', read: true, write: 3 },
  { path: '/run/systemd/system', read: true, write: 4 },
  { path: '/run/systemd/system.attached', read: true, write: 6 },
  { path: '/run/systemd/generator', ...GENERATED },
  { path: '/usr/local/lib/systemd/system', read: true, write: 7 },
  { path: '/lib/systemd/system', read: true, write: 9, mergedInto: '/usr/lib/systemd/system' },
  { path: '/usr/lib/systemd/system', read: true, write: 8 },
  { path: '/run/systemd/generator.late', ...GENERATED },
];

const read = UNIT_SEARCH_PATH.filter((directory) => directory.read);

/** Where a template's file may lie, highest rank first: the first found is the one its instances load. */
export const UNIT_FILE_SEARCH: readonly string[] = read.map(({ path }) => path);

/**
 * Where a drop-in may lie, first first: a file name found in two is read from the first (conf-files.c). Ranked as
 * UNIT_FILE_SEARCH, but for a merged-/usr directory after the one it is merged into, as systemd names its drop-ins.
 */
export const DROP_IN_SEARCH: readonly string[] = read
  .filter(({ mergedInto }) => mergedInto === undefined)
  .flatMap(({ path }) => [path, ...read.filter(({ mergedInto }) => mergedInto === path).map((merged) => merged.path)]);

/** Where a unit or drop-in may be declared (a file elsewhere is never loaded), in the order the helper lists them. */
export const UNIT_DIRECTORIES: readonly string[] = UNIT_SEARCH_PATH.flatMap(({ path, write }) =>
  write === undefined ? [] : [{ path, write }],
)
  .sort((a, b) => a.write - b.write)
  .map(({ path }) => path);

/** The root helper's `DIRS=` lines: UNIT_DIRECTORIES in sh, each line at most 120 characters, as its text was. */
export const helperDirsLines = (): string => {
  const lines: string[] = [];
  for (const path of UNIT_DIRECTORIES) {
    const last = lines.length - 1;
    const line = lines[last];
    if (line !== undefined && line.length + path.length + 2 <= 120) lines[last] = `${line} ${path}`;
    else lines.push(lines.length === 0 ? `DIRS='${path}` : `DIRS="$DIRS ${path}`);
  }
  return lines.map((line, index) => `${line}${index === 0 ? "'" : '"'}`).join('\n');
};
