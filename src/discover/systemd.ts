/**
 * A host's own systemd units as declarations: the unit files under /etc/systemd/system that no
 * Debian package ships, their templates' enabled instances, and the drop-ins there. Each is declared
 * only when no stack's mark is on it (unit-ownership.ts; left out, the summary says which stack's), the
 * kind's rules hold and the kind's own diff reads it in sync with what was read.
 */
import { propProblems } from '../core/definition';
import { type Fields, withoutDefaults } from '../core/fields';
import { describeDiff } from '../core/protocol';
import { describeProblems, type Problem } from '../core/rules';
import { diffDropIn, DROP_IN_FIELDS, dropInRules, dropInSpecOf } from '../linux/systemd-drop-in';
import { INSTANCE_FIELDS, instanceRules, instanceSpecOf } from '../linux/systemd-instance';
import { UNIT_FIELDS, unitFieldsFor, unitRules, unitSpecOf } from '../linux/systemd-unit';
import type { DesiredUnit, LiveUnit } from '../linux/unit-control';
import { diffUnit } from '../linux/unit-diff';
import { restartOnPath } from '../linux/unit-file';
import { instanceOf, isTemplate, unitNameProblem } from '../linux/unit-name';
import { dropInIntentPath, unitIntentPath } from '../linux/unit-intent';
import { dropInMarkPath } from '../linux/unit-ownership';
import type { ReadEntry } from '../linux/unit-read';
import { installConfigOf } from '../linux/install-config';
import { enabledOf, isMasked } from '../linux/unit-state';
import { ADOPT, type Declaration, type Discovered, isValue, Ref, type Skipped, type Value } from './declaration';
import { fileText, type HostListing, UNIT_DIR } from './host-listing';
import { hiddenIntentsNote, markOf } from './unit-marks';

/** What the listing holds that discover may declare, and what its status read must ask for. */
export interface HostCandidates {
  readonly units: ReadonlyArray<{ readonly name: string; readonly content: string }>;
  readonly instances: readonly string[];
  readonly dropIns: ReadonlyArray<{ readonly unit: string; readonly name: string; readonly content: string }>;
  readonly skipped: readonly Skipped[];
  /** Directories of the stacks' marks the login may not search (HostListing). */
  readonly hidden?: readonly string[];
}

const HOST = 'ssh';

/** The candidates in the listing: files no package ships, by valid names, whose unit `wanted` takes. */
export const hostCandidates = (listing: HostListing, wanted: (unit: string) => boolean): HostCandidates => {
  const skipped: Skipped[] = [];
  const mine = [...listing.files].filter(([path]) => !listing.owned.has(`${UNIT_DIR}/${path}`));
  const texts = mine.flatMap(([path, bytes]) => {
    const read = fileText(bytes);
    if ('why' in read) skipped.push({ what: `${UNIT_DIR}/${path}`, why: read.why });
    return 'text' in read ? [{ path, content: read.text }] : [];
  });
  const units = texts
    .filter(({ path }) => !path.includes('/') && unitNameProblem(path) === undefined && wanted(path))
    .map(({ path, content }) => ({ name: path, content }));
  const templates = new Set(units.map((unit) => unit.name).filter(isTemplate));
  const instances = [...listing.links.keys()]
    .map((path) => /^[^/]+\.(?:wants|requires)\/([^/]+)$/.exec(path)?.[1])
    .filter((name): name is string => name !== undefined && unitNameProblem(name) === undefined)
    .filter((name) => !isTemplate(name) && templates.has(instanceOf(name) ?? ''));
  for (const [path, to] of listing.links) {
    if (!path.includes('/') && to === '/dev/null' && wanted(path)) {
      skipped.push({ what: path, why: 'masked (a link to /dev/null, no unit file to declare)' });
    }
  }
  const dropIns = texts.flatMap(({ path, content }) => {
    const match = /^([^/]+)\.d\/([^/]+)\.conf$/.exec(path);
    const [unit = '', name = ''] = match === null ? [] : match.slice(1);
    return match !== null && unitNameProblem(unit) === undefined && wanted(unit) ? [{ unit, name, content }] : [];
  });
  return {
    units,
    instances: [...new Set(instances)].sort(),
    dropIns,
    skipped,
    ...(listing.hidden.length > 0 ? { hidden: listing.hidden } : {}),
  };
};

/** Each candidate with its status read: one record per object, in the order the read answers. */
type Candidate = { readonly entry: ReadEntry } & (
  | { readonly kind: 'unit'; readonly unit: HostCandidates['units'][number] }
  | { readonly kind: 'instance'; readonly name: string }
  | { readonly kind: 'drop-in'; readonly dropIn: HostCandidates['dropIns'][number] }
);

const candidatesOf = (found: HostCandidates): Candidate[] => [
  ...found.units.map((unit): Candidate => ({
    kind: 'unit',
    unit,
    entry: {
      unit: unit.name,
      file: `${UNIT_DIR}/${unit.name}`,
      record: restartOnPath({ name: unit.name }),
      intent: unitIntentPath({ name: unit.name }),
    },
  })),
  ...found.instances.map((name): Candidate => ({
    kind: 'instance',
    name,
    entry: { unit: name, record: restartOnPath({ name }), intent: unitIntentPath({ name }) },
  })),
  ...found.dropIns.map((dropIn): Candidate => ({
    kind: 'drop-in',
    dropIn,
    entry: {
      unit: dropIn.unit,
      file: `${UNIT_DIR}/${dropIn.unit}.d/${dropIn.name}.conf`,
      record: dropInMarkPath({ unit: dropIn.unit, name: dropIn.name, directory: UNIT_DIR }),
      intent: dropInIntentPath({ unit: dropIn.unit, name: dropIn.name, directory: UNIT_DIR }),
    },
  })),
];

/** The status read of every candidate, in the order `systemdDeclarations` takes the answers. */
export const statusEntries = (found: HostCandidates): ReadEntry[] => candidatesOf(found).map(({ entry }) => entry);

/**
 * The declarations, given each entry's live state in `statusEntries` order, the files the read found
 * but could not read, and the identity of the stack discover writes (whose marks the summary tells apart).
 */
export const systemdDeclarations = (
  host: Readonly<Record<string, Value>>,
  found: HostCandidates,
  live: readonly LiveUnit[],
  unreadable: ReadonlySet<string> = new Set(),
  stackId?: string,
): Discovered => {
  const read = candidatesOf(found).map((candidate, index) => ({ ...candidate, live: stateAt(live, index) }));
  const owned = (what: string, { entry, live }: { entry: ReadEntry; live: LiveUnit }): Skipped | undefined => {
    const mark = markOf(entry, live, unreadable, found.hidden ?? [], stackId);
    return mark === undefined ? undefined : { what, ...mark };
  };
  const of = <K extends Candidate['kind']>(kind: K) =>
    read.filter((c): c is Extract<(typeof read)[number], { kind: K }> => c.kind === kind);
  const units = of('unit').map((c) => ({
    ...c.unit,
    result: owned(c.unit.name, c) ?? unitDeclaration(c.unit, c.live),
  }));
  const declared = new Map(
    units.flatMap(({ name, content, result }) => ('construct' in result ? [[name, content]] : [])),
  );
  const instances = of('instance').map((c) => ({
    name: c.name,
    result: owned(c.name, c) ?? instanceDeclaration(c.name, declared, c.live),
  }));
  const named = new Set([...declared.keys(), ...instances.filter((i) => 'construct' in i.result).map((i) => i.name)]);
  const dropIns = of('drop-in').map(
    (c) =>
      owned(`${UNIT_DIR}/${c.dropIn.unit}.d/${c.dropIn.name}.conf`, c) ?? dropInDeclaration(c.dropIn, named, c.live),
  );
  const all = [...units.map((unit) => unit.result), ...instances.map((instance) => instance.result), ...dropIns];
  const declarations = all.filter((item): item is Declaration => 'construct' in item);
  const target: Declaration = { key: HOST, construct: 'SshHost', id: 'host', props: host };
  return {
    declarations: declarations.length === 0 ? [] : [target, ...declarations],
    skipped: [...found.skipped, ...all.filter((item): item is Skipped => 'why' in item)],
    notes: declarations.length > 0 ? hiddenIntentsNote(found.hidden ?? []) : [],
  };
};

/** The state read for the candidate at `index`: the read answers one per entry, or it is refused. */
const stateAt = (live: readonly LiveUnit[], index: number): LiveUnit => {
  const state = live[index];
  if (state === undefined) throw new Error(`discover: the status read answered ${live.length} units, not ${index + 1}`);
  return state;
};

/** A construct id for a unit: its name without `.service` or a template's trailing `@`. */
const idOf = (unit: string): string => unit.replace(/\.service$/, '').replace(/@$/, '');

/** How a unit runs now, as `started`: a crash loop counts as running, a oneshot mid-run as not. */
const startedOf = (live: LiveUnit): boolean =>
  ['active', 'reloading'].includes(live.status.activeState) || live.status.subState.startsWith('auto-restart');

/** Why a declaration would not do: its rules, a mask, or a diff the kind's read would show. */
const unfit = (problems: readonly Problem[], live: LiveUnit, desired: DesiredUnit | undefined): string | undefined => {
  if (problems.length > 0) return describeProblems(problems);
  if (isMasked(live.status)) return 'masked';
  const changes = desired === undefined ? {} : diffUnit(desired, live);
  return Object.keys(changes).length === 0 ? undefined : `it would not read in sync: ${describeDiff(changes)}`;
};

/** The props discover writes of what it read: those at their declaration's default left out. */
const written = (fields: Fields, read: Readonly<Record<string, unknown>>): Record<string, Value> =>
  Object.fromEntries(
    Object.entries(withoutDefaults(fields, read)).filter((entry): entry is [string, Value] => isValue(entry[1])),
  );

/**
 * How a unit is now, as its props say it: enabled when systemd says either way, started as it runs. `static`
 * where its own text (an instance: its template's) has an [Install] to enable is false: a drop-in emptied it
 * (measured, systemd 252), which `enabled` left out would not say, its default judged by the text alone.
 */
const controlOf = (name: string, live: LiveUnit, content: string): { enabled?: boolean; started: boolean } => {
  const state = live.status.unitFileState;
  const enabled = enabledOf(state) ?? (state === 'static' && installConfigOf(content) === true ? false : undefined);
  // A template never runs itself: its instances do (unitRules).
  const started = isTemplate(name) ? false : startedOf(live);
  return enabled === undefined ? { started } : { enabled, started };
};

/**
 * A unit read as its props: those its declaration would set otherwise (a template's defaults are its own),
 * and the spec they make, with which the kind's diff reads the unit.
 */
const unitDeclaration = (unit: { name: string; content: string }, live: LiveUnit): Declaration | Skipped => {
  const read = {
    name: unit.name,
    directory: UNIT_DIR,
    content: unit.content,
    ...controlOf(unit.name, live, unit.content),
  };
  const own = written(unitFieldsFor(unit.name), read);
  const problems = [...propProblems('SystemdUnit', UNIT_FIELDS, own), ...unitRules(own)];
  const spec = problems.length === 0 ? unitSpecOf(read) : undefined;
  const why = unfit(problems, live, spec === undefined ? undefined : { ...spec, content: unit.content });
  if (why !== undefined) return { what: unit.name, why };
  const loop = live.status.subState.startsWith('auto-restart');
  return {
    key: `unit:${unit.name}`,
    construct: 'SystemdUnit',
    id: idOf(unit.name),
    props: { host: new Ref(HOST), ...own, ...ADOPT },
    ...(loop ? { note: `${unit.name} was crash-looping (activating/auto-restart) when discovered` } : {}),
  };
};

const instanceDeclaration = (
  name: string,
  templates: ReadonlyMap<string, string>,
  live: LiveUnit,
): Declaration | Skipped => {
  const template = instanceOf(name);
  if (template === undefined) return { what: name, why: 'it is not an instance of a template' };
  const content = templates.get(template);
  if (content === undefined) return { what: name, why: `its template ${template} is not declared` };
  const instance = name.slice(template.indexOf('@') + 1, name.length - (template.length - template.indexOf('@') - 1));
  const read = { instance, ...controlOf(name, live, content) };
  const own = written(INSTANCE_FIELDS, read);
  const problems = [...propProblems('SystemdUnitInstance', INSTANCE_FIELDS, own), ...instanceRules(template, instance)];
  const spec =
    problems.length === 0 ? instanceSpecOf(read, { name: template, directory: UNIT_DIR, content }) : undefined;
  const why = unfit(problems, live, spec);
  if (why !== undefined) return { what: name, why };
  return {
    key: `unit:${name}`,
    construct: 'SystemdUnitInstance',
    id: idOf(name),
    props: { template: new Ref(`unit:${template}`), ...own, ...ADOPT },
  };
};

const dropInDeclaration = (
  dropIn: { unit: string; name: string; content: string },
  declared: ReadonlySet<string>,
  live: LiveUnit,
): Declaration | Skipped => {
  const what = `${UNIT_DIR}/${dropIn.unit}.d/${dropIn.name}.conf`;
  const read = { unit: dropIn.unit, name: dropIn.name, directory: UNIT_DIR, content: dropIn.content };
  const { unit: _, ...own } = written(DROP_IN_FIELDS, read);
  const problems = [...propProblems('SystemdDropIn', DROP_IN_FIELDS, read), ...dropInRules({ ...read, host: HOST })];
  if (problems.length > 0) return { what, why: describeProblems(problems) };
  const changes = diffDropIn({ ...dropInSpecOf(read), content: dropIn.content }, live);
  if (Object.keys(changes).length > 0) return { what, why: `it would not read in sync: ${describeDiff(changes)}` };
  const unit: Value = declared.has(dropIn.unit) ? new Ref(`unit:${dropIn.unit}`) : dropIn.unit;
  return {
    key: `drop-in:${dropIn.unit}:${dropIn.name}`,
    construct: 'SystemdDropIn',
    id: `${idOf(dropIn.unit)}-${dropIn.name}`,
    props: { unit, ...(typeof unit === 'string' ? { host: new Ref(HOST) } : {}), ...own, ...ADOPT },
  };
};
