/**
 * The files on disk of a unit systemd has not loaded. Its drop-ins: `show` lists none for a unit whose file is not
 * there yet (LoadState=not-found, DropInPaths empty: measured, systemd 252), while `systemctl enable` reads them once
 * the batch writes its file. So a drop-in made by hand that empties the [Install] of a unit the stack is about to write
 * went unseen: the plan said the unit is absent, and the apply wrote, enabled and started it before its read back
 * failed (measured). The read finds them (`UNLOADED_DROP_INS`), and the parse lists them as systemd will load them.
 * A template's own file: `show` refuses a template's name, so a copy ranked higher never read as a shadow while its
 * instances loaded it, and the apply wrote a file they never load (measured, systemd 252).
 */
import { DROP_IN_SEARCH, UNIT_FILE_SEARCH } from './unit-directories';
import { instanceOf, isTemplate } from './unit-name';
import type { UnitStatus } from './unit-state';

/**
 * Sets `m` to the `.conf` files in `<unit>.d/` and, for an instance, `<template>.d/` under each of DROP_IN_SEARCH
 * (unit-directories.ts), for each unit `show`'s output (`$s`) calls not-found, one a line (a unit's name holds no
 * space; one of a drop-in that does is read as two words that are no file, and leaves the unit to the read back).
 * Globs only: no process per unit.
 */
export const UNLOADED_DROP_INS =
  `u=$(printf '%s\\n' "$s" | sed -n '/^Id=/h; /^LoadState=not-found$/{ x; s/^Id=//p; }'); ` +
  'm=$(for n in $u; do case $n in *@*.*) t="${n%%@*}@.${n##*.}";; *) t=$n;; esac; ' +
  `for d in ${DROP_IN_SEARCH.join(' ')}; do for f in "$d/$n.d/"*.conf "$d/$t.d/"*.conf; do ` +
  '[ -f "$f" ] && printf \'%s\\n\' "$f"; done; done; done)';

/**
 * `status` with the drop-ins of `unit` among the files the read read (`read`), when systemd loaded none of it:
 * those of its `.d/` and its template's, each file name once, from the first of DROP_IN_SEARCH, in file-name order.
 */
export const withUnloadedDropIns = (
  unit: string,
  status: UnitStatus,
  read: ReadonlyMap<string, unknown>,
): UnitStatus => {
  if (status.loadState !== 'not-found' || (status.dropInPaths ?? []).length > 0 || isTemplate(unit)) return status;
  const names = [unit, ...[instanceOf(unit) ?? []].flat()];
  const byFile = new Map<string, string>();
  for (const directory of DROP_IN_SEARCH)
    for (const name of names)
      for (const path of read.keys()) {
        const file = path.startsWith(`${directory}/${name}.d/`) ? path.slice(directory.length + name.length + 4) : '';
        if (file.endsWith('.conf') && !file.includes('/') && !byFile.has(file)) byFile.set(file, path);
      }
  const dropInPaths = [...byFile.keys()].sort().map((file) => byFile.get(file) ?? file);
  return dropInPaths.length === 0 ? status : { ...status, dropInPaths };
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
