/**
 * What destroy and undo remove of a unit, as one script: its file, its restartOn record and intent, and every
 * link to the file that `systemctl enable` made ([Install] WantedBy=, RequiredBy=, Alias=). A link
 * left behind keeps a removed unit wanted, and `systemctl disable` skips a masked unit's links and
 * cannot read a removed file's [Install], so the links are found by where they point. A /dev/null
 * mask is someone's decision: it is reported and stays. What cannot be removed is named.
 */
import { quote } from './shell';
import { restartOnPath, unitPath } from './unit-file';
import { unitIntentPath } from './unit-intent';
import type { UnitIdentity } from './systemd-unit';
import { maskPaths } from './unit-commands';
import { instanceOf, isTemplate } from './unit-name';

/** Where `systemctl enable` puts links: the admin directory and its `<unit>.wants|requires|upholds`. */
export const LINK_DIRECTORY = '/etc/systemd/system';

/** What goes when a unit goes. */
export interface Removal {
  readonly name: string;
  /** The unit file; none for an instance, whose file is its template's. */
  readonly file?: string;
  readonly record: string;
  /** The intent an interrupted apply left (unit-intent.ts). */
  readonly intent: string;
  /** Links that point at this file are removed... */
  readonly linksTo: string;
  /** ...only those of this name, for an instance (its template's other instances keep theirs). */
  readonly linkName?: string;
  /** Where a /dev/null mask of the unit can be: reported, never removed. */
  readonly masks: readonly string[];
}

export const removalOf = (unit: UnitIdentity, ownsFile: boolean): Removal => {
  const template = ownsFile ? undefined : instanceOf(unit.name);
  return {
    name: unit.name,
    ...(ownsFile ? { file: unitPath(unit) } : {}),
    record: restartOnPath(unit),
    intent: unitIntentPath(unit),
    linksTo: template === undefined ? unitPath(unit) : unitPath({ directory: unit.directory, name: template }),
    ...(template === undefined ? {} : { linkName: unit.name }),
    masks: maskPaths(unit),
  };
};

/** `pattern` matches `text` literally in find's -name and -lname (fnmatch), whatever it holds. */
const literal = (text: string): string => text.replace(/[\\*?[]/g, '\\$&');

/**
 * The shell lines that remove `removal`, printing `removed <path>`, `kept <mask>` and
 * `left <path>: <why>`. Links are looked for one level below the admin directory, where enable
 * writes them; a relative target is resolved before it is compared.
 */
export const removeLines = (removal: Removal, linkDirectory = LINK_DIRECTORY): string[] => {
  const base = removal.linksTo.slice(removal.linksTo.lastIndexOf('/') + 1);
  const named = removal.linkName === undefined ? '' : ` -name ${quote(literal(removal.linkName))}`;
  return [
    'gone() { [ ! -e "$1" ] && [ ! -L "$1" ]; }',
    'drop() { gone "$1" && return 0; why=$(rm -f -- "$1" 2>&1); ' +
      'if gone "$1"; then echo "removed $1"; else echo "left $1: ${why:-it is still there}"; fi; }',
    ...(removal.file === undefined
      ? []
      : [`[ "$(readlink -- ${quote(removal.file)} 2>/dev/null)" = /dev/null ] || drop ${quote(removal.file)}`]),
    `drop ${quote(removal.record)}`,
    `drop ${quote(removal.intent)}`,
    `for m in ${removal.masks.map(quote).join(' ')}; do ` +
      '[ "$(readlink -- "$m" 2>/dev/null)" = /dev/null ] && echo "kept $m"; done',
    `find ${quote(linkDirectory)} -maxdepth 2 -type l${named} ` +
      `\\( -lname ${quote(`*/${literal(base)}`)} -o -lname ${quote(literal(base))} \\) 2>/dev/null |`,
    '  while IFS= read -r l; do t=$(readlink -- "$l"); ' +
      'case $t in /*) ;; *) t=$(realpath -m -s -- "${l%/*}/$t");; esac; ' +
      `[ "$t" = ${quote(removal.linksTo)} ] && drop "$l"; done`,
  ];
};

/**
 * The whole of a unit's destroy after its stop, as one script: disable it while its file is there
 * (when asked: that also disables the units its Also= names), remove it, clear a failed record
 * (one stays listed, the host "degraded", after its file is gone), then say how systemd has it and
 * whether it needs a reload, which the caller runs (shared with the run's other destroys, see
 * HostShell.reload). A unit needs one while systemd still has it loaded (a stopped unit nothing refers
 * to is dropped at once); an instance, whose template stays loadable, when it was disabled.
 */
export const destroyScript = (removal: Removal, disable: boolean): string => {
  const name = quote(removal.name);
  const state = (property: string) => `"$(systemctl show -p ${property} --value -- ${name} 2>/dev/null)"`;
  const reload =
    removal.file !== undefined
      ? [`[ ${state('LoadState')} = not-found ] || echo reload`]
      : disable
        ? ['echo reload']
        : [];
  return [
    ...(disable ? [`systemctl disable --no-reload -- ${name} || exit 1`] : []),
    ...removeLines(removal),
    // `show` refuses a template's name: its state reads empty, so a template is always reloaded.
    ...(isTemplate(removal.name)
      ? []
      : [`if [ ${state('ActiveState')} = failed ]; then systemctl reset-failed -- ${name} || exit 1; fi`]),
    ...reload,
    `echo "load "${state('LoadState')}`,
    '',
  ].join('\n');
};

/**
 * What the script did: the paths removed, the masks kept, the paths left (with why), the load state,
 * and whether systemd must reload to let go of the unit.
 */
export interface RemovalReport {
  readonly removed: readonly string[];
  readonly masks: readonly string[];
  readonly left: readonly string[];
  readonly loadState?: string;
  readonly reload: boolean;
}

export const parseRemoval = (stdout: string): RemovalReport => {
  const removed: string[] = [];
  const masks: string[] = [];
  const left: string[] = [];
  let loadState: string | undefined;
  let reload = false;
  for (const line of stdout.split('\n')) {
    const [word = '', ...rest] = line.split(' ');
    const text = rest.join(' ');
    if (word === 'removed') removed.push(text);
    else if (word === 'kept') masks.push(text);
    else if (word === 'left') left.push(text);
    else if (word === 'load') loadState = text;
    else if (line === 'reload') reload = true;
  }
  return { removed, masks, left, reload, ...(loadState === undefined ? {} : { loadState }) };
};
