/**
 * A unit's links in the other unit directories pid1 reads (links-command.ts `OTHER_LINK_ROOTS`): a
 * `multi-user.target.wants/<unit>` made by hand under /etc/systemd/system.control or /usr/local/lib/systemd/system
 * made pid1 want the unit at boot (`WantedBy=multi-user.target`) while is-enabled said `disabled`, so a unit declared
 * disabled read in sync; under /run/systemd/system.control it read `enabled-runtime`, and the apply's
 * `disable --runtime` left it, failed its read back and undid itself (measured, systemd 252). No systemctl verb the
 * apply has removes such a link (`disable`, `disable --runtime`, `reenable`: measured), so the plan and the apply
 * refuse it, in the words here, before any change; its removal by hand ends it.
 */
import { LINK_ROOTS, OTHER_LINK_ROOTS } from './links-command';
import { refusedAliases } from './unit-alias';
import { typedWord } from './shell';

type AliasLinks = Parameters<typeof refusedAliases>[1];

/** Every root the read lists, the two enable links under first. */
const ROOTS: readonly string[] = [LINK_ROOTS.etc, LINK_ROOTS.run, ...OTHER_LINK_ROOTS];

/** A link's root among the read's and its path under it; undefined for a path under none. */
export const splitRoot = (full: string): { root: string; path: string } | undefined => {
  const root = ROOTS.find((each) => full.startsWith(`${each}/`));
  return root === undefined ? undefined : { root, path: full.slice(root.length + 1) };
};

/** Whether a root is one of the other directories, which no systemctl verb of the apply's links in or unlinks. */
export const isOtherRoot = (root: string): boolean => (OTHER_LINK_ROOTS as readonly string[]).includes(root);

/**
 * The links of a unit in the other directories the apply refuses it over: every one for a unit declared disabled,
 * which pid1 follows all the same; for one declared enabled, those its [Install] does not make (a link it makes,
 * there too, only wants the unit where its enable does); none while the read cannot tell what it makes. Undefined
 * when there is none.
 */
export const unremovableLinks = (
  enabled: boolean,
  links: { readonly other?: readonly string[]; readonly install?: readonly string[] } | undefined,
): readonly string[] | undefined => {
  const { other = [], install } = links ?? {};
  if (enabled && install === undefined) return undefined;
  const refused = enabled ? other.filter((full) => !(install ?? []).includes(splitRoot(full)?.path ?? '')) : other;
  return refused.length === 0 ? undefined : refused;
};

/** The refusal's verdict, after `<unit> on <host>`. */
export const otherLinksVerdict = (paths: readonly string[]): string =>
  `has ${paths.length === 1 ? 'a link' : 'links'} systemctl cannot remove`;

/** Why the apply refuses it, and how to end that, in the plan's words and the apply's, before "nothing was changed". */
export const otherLinksWords = (enabled: boolean, paths: readonly string[]): string => {
  const one = paths.length === 1;
  const what = enabled
    ? `${one ? 'a link' : 'links'} its [Install] does not make`
    : `${one ? 'a link' : 'links'} of a unit declared disabled`;
  const where = `outside ${LINK_ROOTS.etc} and ${LINK_ROOTS.run}`;
  const why = 'which pid1 follows and systemctl disable, disable --runtime and reenable leave (measured)';
  const fix = `remove ${one ? 'it' : 'them'} by hand (rm ${paths.map(typedWord).join(' ')}) and apply again`;
  return `${paths.join(', ')}, ${what} ${where}, ${why}; ${fix}`;
};

/** Whether the apply refuses it over its links: those here, or an alias its [Install] does not make (unit-alias.ts). */
export const refusesLinks = (enabled: boolean, links: Parameters<typeof unremovableLinks>[1] & AliasLinks): boolean =>
  unremovableLinks(enabled, links) !== undefined || refusedAliases(enabled, links) !== undefined;
