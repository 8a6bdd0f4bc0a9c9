/**
 * A unit's [Install] links as they are on disk against those its [Install] makes. `list-unit-files` says
 * `enabled` once any link is there, so a link added by hand in another target's `.wants/` (or one an
 * old WantedBy= left, or a template's old [Install] left for its instance) read in sync while the unit
 * started for a target the stack never declared (an audit on systemd 252). The read lists the links
 * under /etc/systemd/system and /run/systemd/system (`enable --runtime`) and the [Install] lines of the
 * file systemd loads, in the one read script (unit-read.ts, its command in links-command.ts); this file says what
 * differs.
 */
import { enableReadsDropIn } from './install-settings';
import { leftAliases } from './unit-alias';
import { type HostFacts, parseFacts } from './unit-facts';
import { LINK_ROOTS } from './links-command';
import { isOtherRoot, splitRoot, unremovableLinks } from './unit-other-links';
import { unknownLinks } from './install-unknown';
import { defaultInstanceLinks, defaultInstanceOf, installLinks, templateAliases } from './unit-install';
import { instanceOf, isTemplate } from './unit-name';

/** A unit's links, each as its path under its root (`multi-user.target.wants/a.service`, an alias `b.service`). */
export interface UnitLinks {
  readonly etc: readonly string[];
  readonly run: readonly string[];
  /** The links its [Install] makes; undefined when the read cannot tell (no file read, or `unknown`). */
  readonly install?: readonly string[];
  /** Why the read cannot tell the links its [Install] makes, though it read every file (unit-install.ts). */
  readonly unknown?: string;
  /** Set when `unknown` is `systemctl enable`'s own refusal: the apply's enable fails (unit-install.ts). */
  readonly enableRefused?: true;
  /** An instance's aliases its [Install] does not make, which the apply cannot remove (unit-alias.ts). */
  readonly aliases?: readonly string[];
  /**
   * For a template, the instance its DefaultInstance= has enable link (unit-install.ts): only the links named
   * for it are compared (`comparedLinks`), the others being its other instances'.
   */
  readonly defaultInstance?: string;
  /** A template without DefaultInstance=: only the aliases its enable makes are compared (`templateAliases`). */
  readonly aliasesOnly?: true;
  /** The [Install] lines of each drop-in enable reads that the read read, by path (unit-enable.ts counts them). */
  readonly dropIns?: ReadonlyMap<string, readonly string[]>;
  /** Its links in the other directories pid1 reads, each its full path; never a template's (unit-other-links.ts). */
  readonly other?: readonly string[];
}

/**
 * The read's links: for a unit, given the files it was loaded from (its file, then its drop-ins) and whether
 * a file was read, what `find` found and what its [Install] makes.
 */
export const readLinks = (units: readonly string[], text: string) => {
  const [byUnit, sections, facts] = [foundLinks(units, text), parseInstall(text), parseFacts(text)];
  return (unit: string, [file = '', ...dropIns]: readonly string[], read: (path: string) => boolean): UnitLinks => {
    const found = byUnit.get(unit);
    const other = isTemplate(unit)
      ? []
      : (found?.other ?? []).filter((full) => isLinkOf(unit, splitRoot(full)?.path ?? ''));
    const own = linksOf(unit, found, installLinesOf(unit, file, dropIns, sections, read), facts);
    const links = other.length === 0 ? own : { ...own, other: other.sort() };
    const lines = dropIns.filter((path) => enableReadsDropIn(unit, path) && read(path));
    if (lines.length === 0) return links;
    return { ...links, dropIns: new Map(lines.map((path) => [path, sections.get(path) ?? []])) };
  };
};

/**
 * `find`'s lines into each of `units`' links, /etc, /run and the other directories apart: a link is a unit's or an
 * instance's by its name, and a unit's (an alias) or a template's (its instances') by the file it points to.
 */
const foundLinks = (units: readonly string[], text: string): Map<string, Found> => {
  const links = new Map<string, Found>(units.map((unit) => [unit, { etc: [], run: [], other: [] }]));
  for (const [, full = '', target = ''] of text.matchAll(/^L([^\t]+)\t(.*)$/gm)) {
    const { root = '', path = '' } = splitRoot(full) ?? {};
    if (path === '') continue;
    const [name, pointsTo] = [baseName(path), baseName(target)];
    const owners = [
      isTemplate(name) ? '' : name,
      pointsTo !== name && instanceOf(pointsTo) === undefined ? pointsTo : '',
      aliasedInstance(path, name, pointsTo),
    ];
    for (const owner of owners) {
      if (isOtherRoot(root)) links.get(owner)?.other?.push(full);
      else links.get(owner)?.[root === LINK_ROOTS.etc ? 'etc' : 'run'].push(path);
    }
  }
  return links;
};

const baseName = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

/** The instance an alias (`b@x.service` beside the units, to the file `a@.service`) names: `a@x.service`. */
const aliasedInstance = (path: string, name: string, pointsTo: string): string => {
  const instance = instanceOf(name) === undefined ? undefined : instanceName(name);
  if (path.includes('/') || instance === undefined || !isTemplate(pointsTo)) return '';
  const owner = pointsTo.replace('@.', `@${instance}.`);
  return owner === name ? '' : owner;
};

/** `x` of `a@x.service`. */
const instanceName = (name: string): string => name.slice(name.indexOf('@') + 1, name.lastIndexOf('.'));

/** The links `find` found for a unit, by root; `other`'s by their full paths. */
export interface Found {
  readonly etc: string[];
  readonly run: string[];
  readonly other?: string[];
}

/** `awk`'s output into each file's [Install] lines. */
const parseInstall = (text: string): Map<string, string[]> => {
  const sections = new Map<string, string[]>();
  let lines: string[] | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('@')) {
      lines = sections.get(line.slice(1)) ?? [];
      sections.set(line.slice(1), lines);
    } else if (line.startsWith('|')) lines?.push(line.slice(1));
  }
  return sections;
};

/**
 * The [Install] lines `systemctl enable` reads for `unit`: its file's (an instance's template's), then those of
 * its drop-ins in `<unit>.d/` and `<template>.d/`, which it honours (measured, systemd 252); not those of
 * `service.d/` or a prefix's, which pid1 loads and enable does not. Undefined when one of them was not read.
 */
const installLinesOf = (
  unit: string,
  file: string,
  dropIns: readonly string[],
  sections: ReadonlyMap<string, readonly string[]>,
  read: (path: string) => boolean,
): string[] | undefined => {
  const files = [file, ...dropIns.filter((path) => enableReadsDropIn(unit, path))];
  return files.every(read) ? files.flatMap((path) => sections.get(path) ?? []) : undefined;
};

/** The links a link of `unit` may be: in a dependency directory (`<target>.wants/<unit>`), or an alias. */
const isLinkOf = (unit: string, path: string): boolean => {
  const [first = '', second, ...rest] = path.split('/');
  if (rest.length > 0) return false;
  // An instance's alias is an instance of the same instance (unit-install.ts).
  if (second === undefined) return first !== unit && (instanceOf(unit) === undefined || isAliasOf(unit, first));
  return /\.(wants|requires|upholds)$/.test(first) && (second === unit || instanceOf(unit) === undefined);
};

const isTemplateAlias = (unit: string, path: string): boolean => !path.includes('/') && instanceOf(unit) !== undefined;

const isAliasOf = (unit: string, name: string): boolean =>
  instanceOf(name) !== undefined && instanceName(name) === instanceName(unit);

/** A unit's links among what `find` printed for it, and what its [Install] makes. */
const linksOf = (
  unit: string,
  found: Found | undefined,
  install: readonly string[] | undefined,
  facts: HostFacts | undefined,
): UnitLinks => {
  const etc = (found?.etc ?? []).filter((path) => isLinkOf(unit, path)).sort();
  const run = (found?.run ?? []).filter((path) => isLinkOf(unit, path)).sort();
  if (isTemplate(unit)) return templateLinks(etc, run, install === undefined ? undefined : { unit, install, facts });
  const made = install === undefined ? undefined : installLinks(unit, install, facts);
  if (made === undefined) return { etc, run };
  if (!('links' in made)) return { etc, run, ...unknownLinks(made) };
  // systemd's disable and reenable leave an instance's alias (measured, 252), so the apply cannot remove one its
  // [Install] does not make: such an alias is kept out of those compared, the read cannot compare its links, and
  // the apply refuses one declared enabled (unit-alias.ts).
  const isLeft = (path: string) => isTemplateAlias(unit, path) && !made.links.includes(path);
  const kept = (paths: string[]) => paths.filter((path) => !isLeft(path));
  const left = [
    ...etc.filter(isLeft).map((path) => `${LINK_ROOTS.etc}/${path}`),
    ...run.filter(isLeft).map((path) => `${LINK_ROOTS.run}/${path}`),
  ];
  return { etc: kept(etc), run: kept(run), install: made.links, ...(left.length === 0 ? {} : leftAliases(left)) };
};

/**
 * A template's links, every instance's among them (a rewrite re-enables those: handlers/linux/unit-relink.ts),
 * and those its enable makes: with DefaultInstance=, that instance's enable's, but its aliases the template's
 * (unit-install.ts `defaultInstanceLinks`); without, its aliases alone (`templateAliases`), which the read left to
 * list-unit-files' word, so one removed by hand read in sync (measured, systemd 252).
 */
const templateLinks = (
  etc: string[],
  run: string[],
  read: { unit: string; install: readonly string[]; facts: HostFacts | undefined } | undefined,
): UnitLinks => {
  if (read === undefined) return { etc, run };
  const instance = defaultInstanceOf(read.unit, read.install, read.facts);
  const made =
    instance === undefined
      ? templateAliases(read.unit, read.install, read.facts)
      : defaultInstanceLinks(read.unit, instance, read.install, read.facts);
  // Aliases the read cannot tell leave it to list-unit-files' word: its reenable would unlink every instance.
  if (!('links' in made)) return { etc, run, ...(instance && { defaultInstance: instance, ...unknownLinks(made) }) };
  const compared = instance === undefined ? { aliasesOnly: true as const } : { defaultInstance: instance };
  // An alias of another name by hand (unit-alias.ts): kept out of those compared, as an instance's.
  const isLeft = (path: string) =>
    !path.includes('/') && isTemplate(path) && path !== read.unit && !made.links.includes(path);
  const left = [
    ...etc.filter(isLeft).map((path) => `${LINK_ROOTS.etc}/${path}`),
    ...run.filter(isLeft).map((path) => `${LINK_ROOTS.run}/${path}`),
  ];
  const kept = { etc: etc.filter((path) => !isLeft(path)), run: run.filter((path) => !isLeft(path)) };
  const aliases = left.length === 0 ? {} : leftAliases(left, read.unit);
  return { ...kept, ...compared, install: made.links, ...aliases };
};

/**
 * The links compared: a template's those named for its default instance in a dependency directory, and the
 * aliases its enable makes (`madeAliases`), those alone without DefaultInstance=; another alias by hand or another
 * instance's alias is not its enable's.
 */
export const comparedLinks = ({ etc, run, install, defaultInstance, aliasesOnly }: UnitLinks): Found => {
  if (defaultInstance === undefined && aliasesOnly !== true) return { etc: [...etc], run: [...run] };
  const aliases = madeAliases({ install });
  const named = (path: string) => (path.split('/')[1] ?? '') === defaultInstance || aliases.includes(path);
  return { etc: etc.filter(named), run: run.filter(named) };
};

/** The aliases a template's enable makes (for its default instance, if any), which only its disable removes. */
export const madeAliases = ({ install }: Pick<UnitLinks, 'install'>): readonly string[] =>
  (install ?? []).filter((path) => !path.includes('/'));

/**
 * What differs: links its [Install] does not make (or any, for a unit declared disabled), those missing, and
 * why the read cannot tell which links its [Install] makes (a unit declared enabled).
 */
export interface LinkDrift {
  readonly stray: readonly string[];
  readonly missing: readonly string[];
  readonly unknown?: string;
  /** Set when `unknown` is `systemctl enable`'s own refusal (`UnitLinks.enableRefused`). */
  readonly enableRefused?: true;
  /** The aliases `unknown` names, which the apply refuses an instance over (`UnitLinks.aliases`). */
  readonly aliases?: readonly string[];
  /** Its links in the other directories, which the apply refuses it over (unit-other-links.ts). */
  readonly unremovable?: readonly string[];
}

/**
 * Against `enabled`: a unit enabled has under /etc exactly the links its [Install] makes, and under /run
 * none but those (an `enable --runtime` beside the enable); a unit disabled has none. Undefined when the
 * read did not read what its [Install] makes; `unknown` when it read it and cannot tell: never in sync then,
 * as `list-unit-files` says `enabled` for any link at all. And in the other directories (unit-other-links.ts) none
 * but those its [Install] makes, or none for a unit disabled, whatever else the read could tell.
 */
export const linkDrift = (enabled: boolean, links: UnitLinks | undefined): LinkDrift | undefined => {
  const unremovable = unremovableLinks(enabled, links);
  const drift = comparedDrift(enabled, links);
  return unremovable === undefined ? drift : { stray: [], missing: [], ...drift, unremovable };
};

const comparedDrift = (enabled: boolean, links: UnitLinks | undefined): LinkDrift | undefined => {
  if (links === undefined || (links.install === undefined && links.unknown === undefined)) return undefined;
  const found = comparedLinks(links);
  const etc = found.etc.map((path) => `${LINK_ROOTS.etc}/${path}`);
  const run = found.run.map((path) => `${LINK_ROOTS.run}/${path}`);
  if (!enabled) return { stray: [...etc, ...run], missing: [] };
  if (links.unknown !== undefined) {
    const { unknown, aliases, enableRefused } = links;
    const refused = enableRefused === true ? { enableRefused } : {};
    return { stray: [], missing: [], unknown, ...refused, ...(aliases === undefined ? {} : { aliases }) };
  }
  if (links.install === undefined) return undefined;
  const made = new Set(links.install);
  const stray = [
    ...found.etc.filter((path) => !made.has(path)).map((path) => `${LINK_ROOTS.etc}/${path}`),
    ...found.run.filter((path) => !made.has(path)).map((path) => `${LINK_ROOTS.run}/${path}`),
  ];
  const there = new Set(found.etc);
  const missing = links.install.filter((path) => !there.has(path)).map((path) => `${LINK_ROOTS.etc}/${path}`);
  return { stray, missing };
};

/** Whether there is any. */
export const hasLinkDrift = (drift: LinkDrift | undefined): drift is LinkDrift =>
  drift !== undefined &&
  (drift.stray.length + drift.missing.length > 0 || drift.unknown !== undefined || drift.unremovable !== undefined);
