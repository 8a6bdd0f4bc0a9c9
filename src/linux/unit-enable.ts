/**
 * Whether a unit can be enabled at all: `systemctl enable` makes links only from [Install]'s WantedBy=,
 * RequiredBy=, Alias= and Also= (UpheldBy= from 254, DefaultInstance= for a template). Without them it only
 * warns and systemd calls the unit `static`, so a unit (or a template's instance) declared enabled planned an
 * enable that the apply never made, and the next plan was clean (measured, systemd 252). A drop-in's [Install]
 * counts as the unit's own (measured), a prefix's (`a-.service.d/`) not, as enable ignores it (measured): one
 * rule, for synth (which sees the stack's drop-ins), the read and the apply (the batch's and the host's); the spec
 * boundary, which sees one spec alone, does not refuse by it. [Install] is read by install-settings.ts.
 */
import { broken, type Problem } from '../core/rules';
import { type InstallDropIn, installConfigOf, UPHELD_BY_SINCE } from './install-config';
import { enableReadsDropIn, installSettings } from './install-settings';
import type { Known, UnitContent } from './render-unit';
import { templateCannotEnable } from './template-enable';
import { isTemplate } from './unit-name';

/** What such a unit's [Install] lacks, in the words of systemd's warning. */
const NAMES_NONE = 'names no WantedBy=, RequiredBy=, Alias= or Also=';

/** The rule, for a unit and for an instance (whose [Install] is its template's), its drop-ins' counted. */
export const ENABLE_RULE = {
  unit: `false for a unit whose [Install] (its drop-ins' included) ${NAMES_NONE}`,
  instance: `false for an instance whose template's [Install] (its drop-ins' included) ${NAMES_NONE}`,
} as const;

/** Why, in systemd's terms: what the message says after the rule. */
const WHY = 'systemctl enable makes no link for it: systemd calls it static';

/** The default of `enabled`: true unless the text, with its drop-ins', is known to hold no installation config. */
export const enabledByDefault = (content: UnitContent, known?: Known, dropIns?: readonly InstallDropIn[]): boolean =>
  installConfigOf(content, known, dropIns) !== false;

/** A drop-in of a prefix of the unit (`a-.service` for `a-b.service`), which pid1 loads and enable ignores. */
export interface PrefixDropIn extends InstallDropIn {
  readonly unit: string;
}

/**
 * `enabled: true` for a unit (or an instance, of its template's `content`) that enable cannot link. `prefixDropIns`
 * (the stack's of its prefixes) do not count; one that brings [Install] is named in the problem, as its author
 * meant it to count (install-settings.ts `enableReadsDropIn`).
 */
export const enabledProblems = (
  sort: keyof typeof ENABLE_RULE,
  enabled: unknown,
  content: UnitContent,
  known?: Known,
  dropIns?: readonly InstallDropIn[],
  prefixDropIns: readonly PrefixDropIn[] = [],
): Problem[] => {
  if (enabled !== true || installConfigOf(content, known, dropIns) !== false) return [];
  const named = prefixDropIns.filter((dropIn) => installConfigOf(dropIn.content, known) === true);
  return [
    enabledProblem(
      sort,
      named.map(({ unit, name }) => `${unit}.d/${name}.conf`),
    ),
  ];
};

/** The problem, in the words synth, the read and the apply share; `prefixes`: the prefix drop-ins it ignores. */
export const enabledProblem = (sort: keyof typeof ENABLE_RULE, prefixes: readonly string[] = []): Problem => {
  const { prop, says } = broken('enabled', ENABLE_RULE[sort], true);
  const ignored =
    prefixes.length === 0
      ? ''
      : `; it reads no [Install] of a drop-in of a prefix of the name, which only pid1 loads: ${prefixes.join(', ')}`;
  return { prop, says: `${says} (${WHY}${ignored})` };
};

/** What the apply's refusal adds: how to make the spec one it can apply. */
export const ENABLE_FIX =
  'declare it enabled false, or give its file (an instance: its template) or a drop-in of it an [Install] WantedBy=';

/**
 * The read's words for a unit or an instance declared enabled that systemd calls `static` on the host (no
 * [Install] to enable, its drop-ins' included); undefined otherwise. The apply refuses it with the same words.
 */
export const staticWords = (
  spec: { readonly name: string; readonly enabled: boolean; readonly template?: string },
  unitFileState: string,
  then = ', so it cannot be enabled',
): string | undefined => {
  if (!spec.enabled || unitFileState !== 'static' || isTemplate(spec.name)) return undefined;
  const what = spec.template === undefined ? spec.name : `its template ${spec.template}`;
  return `static: ${what} on the host ${NAMES_NONE} in [Install]${then}`;
};

/** A drop-in of the batch, for the apply: where it goes on the host, and what it says. */
export interface BatchDropIn extends InstallDropIn {
  readonly path: string;
}

/**
 * What the apply's enable of a unit or instance reads once its batch is written: the file it leaves (a unit's
 * own; an instance's template's when the batch declares it, else undefined) and the batch's drop-ins of it (an
 * instance's: its own and its template's).
 */
export interface EnableInput {
  readonly text: UnitContent | undefined;
  readonly dropIns: readonly BatchDropIn[];
}

/**
 * The read's words for a unit or instance declared enabled whose enable systemd's state on the host does not
 * tell; undefined otherwise. `fileKept`: the apply leaves its file as it is (systemd's `static` is of that file).
 * `batch`: what its enable reads once the batch is written, known to a plan's batch read. A unit `static` there
 * whose batch writes the drop-in that gives it an [Install] is enabled by the apply (measured, systemd 252), and
 * one whose batch leaves it none, or whose host's own drop-in takes it away, is refused by the apply
 * (`cannotEnable`): the read says so, in the apply's words. `hostInstall`: the read's [Install] lines of the
 * host's drop-ins (unit-links.ts).
 */
export const enableWords = (
  spec: { readonly name: string; readonly enabled: boolean; readonly template?: string },
  status: { readonly unitFileState: string; readonly dropInPaths?: readonly string[] },
  fileKept: boolean,
  batch?: EnableInput,
  hostInstall?: HostInstall,
): string | undefined => {
  if (status.unitFileState === 'static' && fileKept) {
    const after = batch === undefined ? undefined : installAfter(spec.name, batch, status, hostInstall);
    if (after !== undefined && after.resetBy.length > 0) return hostResetWords(spec, after.resetBy);
    const linked = batch !== undefined && batch.dropIns.length > 0 && after?.config === true;
    return staticWords(spec, status.unitFileState, linked ? LINKED_BY_DROP_IN : undefined);
  }
  return batch === undefined ? undefined : cannotEnable(spec, batch.text, batch.dropIns, status, hostInstall);
};

/** What the read says after `static: ... in [Install]` of a unit whose batch writes the drop-in that links it. */
const LINKED_BY_DROP_IN = " yet; the apply writes its drop-in's [Install] and enables it";

/** The drop-ins pid1 loaded for a unit (`DropInPaths`), a prefix's and a type's among them; the host's systemd. */
type LoadedDropIns = { readonly dropInPaths?: readonly string[]; readonly managerVersion?: number };

/** The [Install] lines of each drop-in of the host that the read read, by path (unit-links.ts `dropIns`). */
export type HostInstall = ReadonlyMap<string, readonly string[]>;

const fileName = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

/**
 * The drop-ins of the host that enable of `unit` reads and the batch does not write, as drop-ins of their [Install]
 * lines; undefined when one was not read. pid1's of a prefix (`a-.service.d/`) or a type (`service.d/`) do not
 * count, as enable ignores their [Install] (measured, systemd 252), nor one of a file name the batch writes, which
 * systemd reads once, from the first directory (one of the host's over the batch's is refused: unit-loaded.ts).
 */
const hostDropIns = (
  unit: string,
  dropIns: readonly BatchDropIn[],
  status: LoadedDropIns,
  hostInstall: HostInstall = new Map(),
): (BatchDropIn & { readonly content: string })[] | undefined => {
  const written = new Set(dropIns.map(({ path }) => fileName(path)));
  const paths = (status.dropInPaths ?? []).filter(
    (path) => !written.has(fileName(path)) && enableReadsDropIn(unit, path),
  );
  if (paths.some((path) => !hostInstall.has(path))) return undefined;
  return paths.map((path) => ({
    path,
    name: fileName(path).replace(/\.conf$/, ''),
    content: ['[Install]', ...(hostInstall.get(path) ?? []), ''].join('\n'),
  }));
};

/**
 * What enable of `unit` reads once the batch is written, the host's own drop-ins of it among the batch's (by file
 * name, as systemd reads them, measured on 252): whether it holds installation config, and the host's drop-ins
 * that take away what the unit's file and the batch give it. Undefined when a drop-in of the host was not read.
 */
const installAfter = (
  unit: string,
  { text, dropIns }: EnableInput,
  status: LoadedDropIns,
  hostInstall?: HostInstall,
) => {
  const host = hostDropIns(unit, dropIns, status, hostInstall);
  if (host === undefined) return undefined;
  const config = installConfigOf(text ?? '', undefined, [...dropIns, ...host], status.managerVersion);
  const given = config === false && installConfigOf(text ?? '', undefined, dropIns, status.managerVersion) === true;
  const resetBy = given ? host.filter(({ content }) => installSettings(content).length > 0) : [];
  return { config, resetBy: resetBy.map(({ path }) => path) };
};

/** Why one whose [Install] the host's drop-ins (`paths`, not the stack's) take away cannot be enabled. */
const hostResetWords = (spec: { readonly template?: string }, paths: readonly string[]): string => {
  const whose = spec.template === undefined ? 'its [Install]' : `its template ${spec.template}'s [Install]`;
  const which = paths.length === 1 ? `drop-in ${paths.join('')}` : `drop-ins ${paths.join(', ')}`;
  const are = paths.length === 1 ? 'is read (remove it to end this)' : 'are read (remove them to end this)';
  return `${whose} ${NAMES_NONE} once the host's ${which}, not the stack's, ${are}, so it cannot be enabled`;
};

/**
 * Why the apply cannot enable a unit or instance declared enabled, or undefined when it can or cannot tell yet.
 * `text` is the file the apply leaves (a unit's own; an instance's template's when the batch declares it),
 * `dropIns` the batch's drop-ins of it (an instance's: its own and its template's), read by file name with the
 * host's (`hostInstall`, a drop-in made by hand among them). Judged from text when the read read every drop-in of
 * the host that enable reads; for an instance of a template only on the host, from systemd's `static` there
 * unless a drop-in of the batch may change that. Otherwise the read back after the apply judges it (`staticWords`).
 */
export const cannotEnable = (
  spec: { readonly name: string; readonly enabled: boolean; readonly template?: string },
  text: UnitContent | undefined,
  dropIns: readonly BatchDropIn[],
  status: { readonly unitFileState: string } & LoadedDropIns,
  hostInstall?: HostInstall,
): string | undefined => {
  if (!spec.enabled) return undefined;
  if (isTemplate(spec.name)) return text === undefined ? undefined : templateCannotEnable(text, dropIns);
  if (text === undefined) return dropIns.length === 0 ? staticWords(spec, status.unitFileState) : undefined;
  const after = installAfter(spec.name, { text, dropIns }, status, hostInstall);
  if (after === undefined || after.config !== false) return undefined;
  if (after.resetBy.length > 0) return hostResetWords(spec, after.resetBy);
  const whose = spec.template === undefined ? 'its file' : `its template ${spec.template}`;
  const upheld = installConfigOf(text, undefined, dropIns) === true ? upheldWords(status.managerVersion) : '';
  return `${whose} ${NAMES_NONE} in [Install], nor does a drop-in of it, so it cannot be enabled${upheld}`;
};

/** Why its UpheldBy= does not count: the host's systemd reads it from 254 on (install-config.ts). */
const upheldWords = (version: number | undefined): string =>
  ` (its UpheldBy= makes links from systemd ${UPHELD_BY_SINCE} on, and the host runs systemd ${version ?? '?'})`;
