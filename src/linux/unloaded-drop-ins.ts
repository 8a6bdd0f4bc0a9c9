/**
 * The drop-ins on disk of a unit systemd has not loaded them for. `show` lists none for a unit whose file is not
 * there yet (LoadState=not-found, DropInPaths empty: measured, systemd 252), while `systemctl enable` reads them once
 * the batch writes its file. So a drop-in made by hand that empties the [Install] of a unit the stack is about to write
 * went unseen: the plan said the unit is absent, and the apply wrote, enabled and started it before its read back
 * failed (measured). A loaded unit's DropInPaths stays as pid1 loaded it, NeedDaemonReload=no, while a drop-in made
 * after the last daemon-reload sits beside it (measured, systemd 252): the plans said in sync or that the file
 * differs, while the apply's reload and enable read it (it reenabled a unit into `static`, unlinked for good, or
 * restarted one running the host's ExecStart=). The read finds them all (`UNLOADED_DROP_INS`), the parse lists them
 * as systemd will load them, and a loaded unit's reads as drift (`unloadedWords`) that the apply's reload ends.
 * A template's own file: `show` refuses a template's name, so a copy ranked higher never read as a shadow while its
 * instances loaded it, and the apply wrote a file they never load (measured, systemd 252).
 */
import { DROP_IN_SEARCH, UNIT_FILE_SEARCH } from './unit-directories';
import { instanceOf, isTemplate } from './unit-name';
import type { UnitStatus } from './unit-state';

/** Prints `$d/$x.d/` when it is there (drop-in-dirs.ts dates it), then its `.conf` files, one a line. */
const GLOB =
  '[ -d "$d/$x.d" ] && printf \'%s/\\n\' "$d/$x.d"; ' +
  'for f in "$d/$x.d/"*.conf; do [ -f "$f" ] && printf \'%s\\n\' "$f"; done';

/**
 * Sets `m` to the `.conf` files of the directories `dropInNames` names for each name `show`'s output (`$s`) gives a
 * unit (Names=: its own and its aliases', each of whose `.d/` pid1 loads: measured, systemd 252),
 * under each of DROP_IN_SEARCH (unit-directories.ts), one a line (a unit's name holds no space; a drop-in's may, and
 * the read splits `$m` on newlines alone, unit-read.ts). Globs only: no process per unit. `x` walks the prefixes as
 * `dropInNames` does (one trailing `-` dropped, then cut after the last `-` that is not the first character); the
 * prefixes and types, shared by many units, are searched once each (`g`).
 */
export const UNLOADED_DROP_INS =
  `u=$(printf '%s\\n' "$s" | sed -n 's/^Names=//p'); ` +
  'm=$(g=; for n in $u; do y=${n##*.}; x=${n%.*}; x=${x%%@*}; ' +
  'case $n in *@*.*) t="${n%%@*}@.$y";; *) t=;; esac; ' +
  'while :; do x=${x%-}; case $x in ?*-*) x="${x%-*}-"; ' +
  'case " $g " in *" $x.$y "*) ;; *) g="$g $x.$y";; esac;; *) break;; esac; done; ' +
  'case " $g " in *" $y "*) ;; *) g="$g $y";; esac; ' +
  `for d in ${DROP_IN_SEARCH.join(' ')}; do for x in $n $t; do ${GLOB}; done; done; done; ` +
  `for x in $g; do for d in ${DROP_IN_SEARCH.join(' ')}; do ${GLOB}; done; done)`;

/**
 * The names whose `.d/` directories hold drop-ins of `unit`, as systemd searches them (dropin.c
 * `unit_file_find_dirs`, systemd 252): the unit's own, its template's, then each prefix of its name (before `@`)
 * cut after a `-` (`a-b-c.service`: `a-b-.service`, `a-.service`), each in every directory of DROP_IN_SEARCH in turn;
 * then its type's (`service`) in each. A drop-in made by hand in a prefix's or the type's directory after the last
 * daemon-reload is not loaded (measured, systemd 252: DropInPaths unchanged, NeedDaemonReload=no) and changes the
 * unit at the next one.
 */
export const dropInNames = (unit: string): { readonly names: string[]; readonly type: string } => {
  const type = unit.slice(unit.lastIndexOf('.') + 1);
  const prefixes: string[] = [];
  let stem = unit.slice(0, unit.lastIndexOf('.')).split('@')[0] ?? '';
  for (;;) {
    stem = stem.endsWith('-') ? stem.slice(0, -1) : stem;
    const dash = stem.lastIndexOf('-');
    if (dash <= 0) break;
    stem = stem.slice(0, dash + 1);
    prefixes.push(`${stem}.${type}`);
  }
  return { names: [unit, ...[instanceOf(unit) ?? []].flat(), ...prefixes], type };
};

/**
 * `status` with the drop-ins of `unit` among the files the read read (`read`) that systemd has not loaded: those of
 * its `.d/` and its template's, each file name once, from the first of DROP_IN_SEARCH. A not-found unit lists them
 * all; a loaded one lists with its DropInPaths those of a file name it has none of, as `unloadedDropIns` too, and
 * reads its content from them all (unit-stale.ts judges its process against what the reload loads). Each in
 * file-name order.
 */
export const withUnloadedDropIns = (
  unit: string,
  status: UnitStatus,
  read: ReadonlyMap<string, unknown>,
): UnitStatus => {
  const shown = status.dropInPaths ?? [];
  if (isTemplate(unit) || !['not-found', 'loaded'].includes(status.loadState)) return status;
  const known = [unit, ...(status.names ?? []).filter((name) => name !== unit)];
  if (status.loadState === 'not-found') {
    const dropInPaths = shown.length > 0 ? [] : onDisk(known, read);
    return dropInPaths.length === 0 ? status : { ...status, dropInPaths };
  }
  const loaded = new Set(shown.map(baseName));
  const unloadedDropIns = onDisk(known, read).filter((path) => !loaded.has(baseName(path)));
  if (unloadedDropIns.length === 0) return status;
  const dropInPaths = [...shown, ...unloadedDropIns].sort((a, b) => compare(baseName(a), baseName(b)));
  const contentPaths = [...(status.fragmentPath === undefined ? [] : [status.fragmentPath]), ...dropInPaths];
  return { ...status, dropInPaths, unloadedDropIns, contentPaths };
};

/**
 * The drop-ins of a unit known by `known` (its name, then its aliases') in `read` (`dropInNames`), each file name once
 * from the first directory searched, by name.
 */
const onDisk = (known: readonly string[], read: ReadonlyMap<string, unknown>): string[] => {
  const searched = known.map(dropInNames);
  const names = [...new Set(searched.flatMap((each) => each.names))];
  const type = searched[0]?.type ?? '';
  const byFile = new Map<string, string>();
  const search = (directory: string, name: string) => {
    for (const path of read.keys()) {
      const file = path.startsWith(`${directory}/${name}.d/`) ? path.slice(directory.length + name.length + 4) : '';
      if (file.endsWith('.conf') && !file.includes('/') && !byFile.has(file)) byFile.set(file, path);
    }
  };
  for (const directory of DROP_IN_SEARCH) for (const name of names) search(directory, name);
  for (const directory of DROP_IN_SEARCH) search(directory, type);
  return [...byFile.keys()].sort(compare).map((file) => byFile.get(file) ?? file);
};

const baseName = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

/** By UTF-16 code unit, as `sort()` orders strings: systemd orders drop-ins by file name with strcmp. */
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The diff's field for the drop-ins on disk a loaded unit's systemd has not loaded; the summary says it in words. */
export const UNLOADED_FIELD = 'unloadedDropIns';

export const unloadedDiff = (status: UnitStatus): Record<string, { live: unknown; want: unknown }> =>
  (status.unloadedDropIns ?? []).length === 0
    ? {}
    : { [UNLOADED_FIELD]: { live: status.unloadedDropIns, want: 'loaded by a daemon-reload' } };

const RELOAD_LOADS = "the apply's daemon-reload loads";

/** The plan's words for them: the apply reloads systemd while any is there (unit-batch.ts `needsReload`). */
export const unloadedWords = (status: UnitStatus): string | undefined => {
  const paths = status.unloadedDropIns ?? [];
  if (paths.length === 0) return undefined;
  const [them, it] = paths.length === 1 ? [`drop-in ${paths[0]}`, 'it'] : [`drop-ins ${paths.join(', ')}`, 'them'];
  return `systemd has not loaded the host's ${them} (made after its last daemon-reload): ${RELOAD_LOADS} ${it}`;
};

/** Where a template's file may lie, first first; the read keeps the regular files among them (unit-read.ts). */
export const templatePaths = (template: string): string[] =>
  isTemplate(template) ? UNIT_FILE_SEARCH.map((directory) => `${directory}/${template}`) : [];

/**
 * A template is a file, never a running unit: loaded when its file exists, enabled as `list-unit-files` says, and
 * loaded from the file its instances load: the first of its paths the read found (`found`), as `show` names an
 * instance's FragmentPath. Measured on systemd 252: `disabled` for a fresh template, `indirect` once any instance is
 * enabled (`is-enabled` says the same), `enabled` only with DefaultInstance=.
 */
export const templateStatus = (
  template: string,
  fileSha256: string | undefined,
  unitFileState: string,
  found: (path: string) => boolean,
): UnitStatus => {
  const fragmentPath = templatePaths(template).find(found);
  return {
    loadState: unitFileState.startsWith('masked') ? 'masked' : fileSha256 === undefined ? 'not-found' : 'loaded',
    activeState: 'inactive',
    subState: 'dead',
    unitFileState,
    needDaemonReload: false,
    ...(fragmentPath === undefined ? {} : { fragmentPath }),
  };
};
