/**
 * The links `systemctl enable` makes from a unit's [Install] lines, as systemd 252's install.c makes them (and
 * 254's UpheldBy=), with every specifier it resolves there, from host facts the links read gathers in the same
 * round trip (unit-facts.ts). Where the read cannot tell what enable makes, it says why: the plan then reads
 * "cannot compare links" instead of trusting `list-unit-files`, which says `enabled` for any link at all.
 */
import { UPHELD_BY_SINCE } from './install-config';
import { installValues, sectionSettings } from './install-settings';
import { type InstallUnknown, refused } from './install-unknown';
import type { HostFacts } from './unit-facts';
import { instanceOf, isTemplate, unitNameProblem } from './unit-name';

/** The links enable makes (paths under its root), or why the read cannot tell them. */
export type InstallMade = { readonly links: string[] } | InstallUnknown;

/** The dependency directories enable makes. UpheldBy= (`.upholds/`) is read only from systemd 254 on. */
const DEPENDENCY_DIRS: Readonly<Record<string, string>> = {
  WantedBy: 'wants',
  RequiredBy: 'requires',
  UpheldBy: 'upholds',
};

/** Types whose Alias= enable reads; for others systemd ignores it with a warning (unit_type_may_alias). */
const MAY_ALIAS = /\.(service|socket|target|device|timer|path)$/;

/**
 * `<target>.wants/<unit>` for each WantedBy= (`.requires` for RequiredBy=, `.upholds` for UpheldBy= from 254)
 * and `<alias>` for each Alias=; a later empty assignment resets (measured, systemd 252). `facts` answers the
 * specifiers of the host (%H, %m, %o, ...); undefined when the read gathered none.
 */
export const installLinks = (unit: string, lines: readonly string[], facts?: HostFacts): InstallMade => {
  const values = settingsOf(lines);
  values.delete('DefaultInstance');
  values.delete('Also');
  if ((values.get('UpheldBy') ?? []).length > 0 && facts?.version === undefined)
    return { unknown: "UpheldBy= makes links from systemd 254 on, and the host's systemd version was not read" };
  const made: string[] = [];
  for (const [key, words] of values) {
    if (key === 'UpheldBy' && (facts?.version ?? 0) < UPHELD_BY_SINCE) continue;
    if (key === 'Alias' && !MAY_ALIAS.test(unit)) continue;
    for (const word of words) {
      const name = expand(word, unit, facts);
      if (typeof name !== 'string') return { ...name, unknown: `${key}=${word}: ${name.unknown}` };
      const link = key === 'Alias' ? aliasOf(unit, name) : dependencyLink(unit, name, key);
      if (typeof link !== 'string') return { ...link, unknown: `${key}=${word}: ${link.unknown}` };
      if (link !== '') made.push(link);
    }
  }
  return { links: [...new Set(made)].sort() };
};

/** The lines of [Install] sections (one reader: install-settings.ts), each key's words; an empty one resets. */
const settingsOf = (lines: readonly string[]) => installValues(sectionSettings(lines));

/**
 * The instance `systemctl enable <template>` links: the one its DefaultInstance= names, whose links its
 * WantedBy= and RequiredBy= make as that instance's own enable does, %i and %n its (measured, systemd 252).
 * Its own specifiers are the template's (`%p` its prefix, `%n` its name, `%i` empty) and the host's (`%H`:
 * measured). Undefined where it names none, or one enable refuses or the read cannot resolve.
 */
export const defaultInstanceOf = (
  template: string,
  lines: readonly string[],
  facts?: HostFacts,
): string | undefined => {
  const values = settingsOf(lines);
  const [word, ...more] = values.get('DefaultInstance') ?? [];
  const instance = word === undefined ? undefined : expand(word, template, facts);
  if (typeof instance !== 'string' || more.length > 0 || instance === '') return undefined;
  const name = template.replace('@.', `@${instance}.`);
  return unitNameProblem(name) === undefined && instanceOf(name) === template ? name : undefined;
};

/**
 * The links `systemctl enable <template>` makes for its default instance: those of the instance's own WantedBy=,
 * RequiredBy= (and 254's UpheldBy=), and each Alias= as the template's, its specifiers the instance's but a
 * template name kept (`Alias=b@.service` links b@.service, `b@%i.service` b@x.service: measured, systemd 252),
 * where the instance's own enable links b@x.service for both. Such an alias goes only with the template's disable.
 */
export const defaultInstanceLinks = (
  template: string,
  instance: string,
  lines: readonly string[],
  facts?: HostFacts,
): InstallMade => {
  // A later empty Alias= resets every alias: the instance's own links without them.
  const own = installLinks(instance, [...lines, 'Alias='], facts);
  if (!('links' in own)) return own;
  const aliases = templateAliases(template, lines, facts, instance);
  return 'links' in aliases ? { links: [...new Set([...own.links, ...aliases.links])].sort() } : aliases;
};

/**
 * The aliases `systemctl enable <template>` links, each Alias= as the template's, its specifiers those of `of`: the
 * default instance's, or the template's own (`%i` empty: `Alias=b@%i.service` links b@.service) for one without
 * DefaultInstance=, whose enable makes only these (its WantedBy= names no instance; measured, systemd 252).
 */
export const templateAliases = (
  template: string,
  lines: readonly string[],
  facts?: HostFacts,
  of = template,
): InstallMade => {
  if (!MAY_ALIAS.test(template)) return { links: [] };
  const made: string[] = [];
  for (const word of settingsOf(lines).get('Alias') ?? []) {
    const name = expand(word, of, facts);
    if (typeof name !== 'string') return { ...name, unknown: `Alias=${word}: ${name.unknown}` };
    if (name.includes('/')) return { unknown: 'an alias with a directory (a .wants/ link by Alias=) is not read' };
    const type = (unit: string) => unit.slice(unit.lastIndexOf('.'));
    const kind = of === template && !isTemplate(name); // `Cannot alias a@.service as b.service` (measured)
    if (unitNameProblem(name) !== undefined || type(name) !== type(template) || kind)
      return prefixed(`Alias=${word}`, refused(`it cannot alias ${template} as ${name}`));
    if (name !== template) made.push(name);
  }
  return { links: [...new Set(made)].sort() };
};

const prefixed = (setting: string, why: InstallUnknown): InstallUnknown => ({
  ...why,
  unknown: `${setting}: ${why.unknown}`,
});

const dependencyLink = (unit: string, name: string, key: string): string | InstallUnknown => {
  if (name.includes('/') || unitNameProblem(name) !== undefined) return refused(`${name} is not a unit name`);
  return `${name}.${DEPENDENCY_DIRS[key]}/${unit}`;
};

/**
 * An Alias= as enable links it: none to the unit itself; an instance's alias is an instance of the same
 * instance, a template's name taking it (`Alias=b@.service` of a@x.service links b@x.service); otherwise one
 * of the unit's type and kind (unit_file_verify_alias, systemd 252, measured).
 */
const aliasOf = (unit: string, alias: string): string | InstallUnknown => {
  if (alias.includes('/')) return { unknown: 'an alias with a directory (a .wants/ link by Alias=) is not read' };
  if (unitNameProblem(alias) !== undefined) return refused(`${alias} is not a unit name`);
  const instance =
    instanceOf(unit) === undefined ? undefined : unit.slice(unit.indexOf('@') + 1, unit.lastIndexOf('.'));
  const name = instance !== undefined && isTemplate(alias) ? alias.replace('@.', `@${instance}.`) : alias;
  if (name === unit) return '';
  const type = (of: string) => of.slice(of.lastIndexOf('.'));
  const instanceOfName =
    instanceOf(name) === undefined ? undefined : name.slice(name.indexOf('@') + 1, name.lastIndexOf('.'));
  if (type(name) !== type(unit) || isTemplate(name) || instanceOfName !== instance)
    return refused(`it cannot alias ${unit} as ${name}`);
  return name;
};

/**
 * `word` with every specifier install.c resolves (install_name_printf): the unit's name (%n %N %p %i %j), the
 * system manager's credentials (%u %U %g %G: root, 0), and the host's facts. Any other letter or digit makes
 * enable fail; any other character after `%` is kept with it; an empty value is left out (specifier_printf).
 */
const expand = (word: string, unit: string, facts?: HostFacts): string | InstallUnknown => {
  if (/["'\\]/.test(word)) return { unknown: 'a quote or an escape is not read' };
  const stem = unit.slice(0, unit.lastIndexOf('.'));
  const at = stem.indexOf('@');
  const prefix = at < 0 ? stem : stem.slice(0, at);
  const own: Record<string, string> = {
    n: unit,
    N: stem,
    p: prefix,
    i: at < 0 ? '' : stem.slice(at + 1),
    j: prefix.slice(prefix.lastIndexOf('-') + 1),
    u: 'root',
    U: '0',
    g: 'root',
    G: '0',
  };
  let problem: InstallUnknown | undefined;
  const name = word.replace(/%([\s\S])?/g, (all, c: string | undefined) => {
    if (c === undefined) return '%';
    if (c === '%') return '%';
    const value = own[c] ?? facts?.specifiers[c];
    if (typeof value === 'string') return value;
    if (!/[A-Za-z0-9]/.test(c)) return all;
    problem ??= !HOST_SPECIFIERS.includes(c)
      ? refused(`%${c} is no specifier of [Install]`)
      : (value ?? { unknown: `the host's %${c} was not read` });
    return '';
  });
  return problem ?? name;
};

/** The specifiers of [Install] answered by the host (COMMON_SYSTEM_SPECIFIERS, systemd 252). */
export const HOST_SPECIFIERS: readonly string[] = ['a', 'A', 'b', 'B', 'H', 'l', 'q', 'm', 'M', 'o', 'v', 'w', 'W'];
