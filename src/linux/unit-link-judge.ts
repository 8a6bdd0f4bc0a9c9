/**
 * How a unit's links are judged against its spec, one judgement for the plan's diff (unit-diff.ts) and the
 * apply's enable step (unit-enable-step.ts): which links are compared, what the plan shows and says of them, and
 * whether the apply's enable is one systemd itself refuses, so that the plan never promises a convergence the
 * enable cannot make.
 */
import type { DesiredUnit, LiveUnit } from './unit-control';
import { LINK_ROOTS } from './links-command';
import { aliasApplyWords } from './unit-alias';
import { comparedLinks, linkDrift, type LinkDrift, madeAliases } from './unit-links';
import { otherLinksVerdict, otherLinksWords, refusesLinks, unremovableLinks } from './unit-other-links';
import { enablementOf } from './unit-state';

/**
 * How its links differ from those its [Install] makes (unit-links.ts), judged where systemd says it is
 * enabled or disabled at all (not static or generated), or indirect for a template whose links are compared
 * (another instance's link keeps it so once its own are gone: measured, systemd 252), and wherever the apply
 * refuses it over its links (unit-other-links.ts, unit-alias.ts), so that the plan says so.
 */
export const linksDriftOf = (spec: DesiredUnit, live: LiveUnit) => {
  const state = live.status.unitFileState;
  const judged =
    enablementOf(state) !== undefined ||
    (state === 'indirect' && (isDefaultInstanced(live) || live.links?.aliasesOnly === true)) ||
    refusesLinks(spec.enabled, live.links);
  return judged ? linkDrift(spec.enabled, live.links) : undefined;
};

export const isDefaultInstanced = (live: LiveUnit): boolean => live.links?.defaultInstance !== undefined;

export const LINKS_FIELD = 'links';

/** Every link found, against the links the apply leaves: those its [Install] makes under /etc, or none. */
export const linksDiff = (spec: DesiredUnit, { links }: LiveUnit) => ({
  live: [
    ...(links === undefined ? [] : comparedLinks(links).etc).map((path) => `${LINK_ROOTS.etc}/${path}`),
    ...(links === undefined ? [] : comparedLinks(links).run).map((path) => `${LINK_ROOTS.run}/${path}`),
    ...(unremovableLinks(spec.enabled, links) ?? []),
  ],
  want: !spec.enabled
    ? []
    : links?.unknown !== undefined
      ? `cannot compare: ${links.unknown}`
      : (links?.install ?? []).map((path) => `${LINK_ROOTS.etc}/${path}`),
});

/** A template whose enable makes aliases for its default instance (unit-links.ts `madeAliases`). */
export const aliasesMade = (live: LiveUnit): boolean =>
  isDefaultInstanced(live) && live.links !== undefined && madeAliases(live.links).length > 0;

/** Such an alias is on the host: only the template's disable removes it (measured, systemd 252). */
export const aliasFound = ({ links }: LiveUnit): boolean =>
  links !== undefined && madeAliases(links).some((alias) => [...links.etc, ...links.run].includes(alias));

/**
 * Whether the apply's enable of it is one `systemctl enable` refuses (a specifier the host cannot answer, an alias
 * systemd cannot make: unit-install.ts): the plan reads "cannot compare links", the apply re-enables, and that fails.
 */
export const enableRefused = (spec: DesiredUnit, live: LiveUnit): boolean =>
  linksDriftOf(spec, live)?.enableRefused === true;

const RE_ENABLES = 'the apply re-enables it, an [Install] without it reads in sync';

/**
 * The plan's words for it. One the read cannot compare says why and what ends it: the apply re-enables it (so
 * its links are those enable makes, or enable's own error says why not), and an [Install] the read can compare,
 * in its file or a drop-in's, reads in sync; but for an alias the apply cannot remove, the apply refuses it and
 * its removal by hand ends it (unit-alias.ts).
 */
export const linkWords = (drift: LinkDrift, enabled: boolean): string => {
  const { unremovable } = drift;
  // Ahead of the rest, which the apply it refuses leaves as it is.
  if (unremovable !== undefined)
    return `the apply refuses it, as it ${otherLinksVerdict(unremovable)}: ${otherLinksWords(enabled, unremovable)}`;
  if (drift.unknown !== undefined) {
    const does = drift.aliases === undefined ? RE_ENABLES : aliasApplyWords(drift.aliases);
    return `cannot compare links: ${drift.unknown}; ${does}`;
  }
  const whose = enabled ? 'links its [Install] does not make' : 'links of a unit declared disabled';
  const stray = drift.stray.length === 0 ? [] : [`${whose}: ${drift.stray.join(', ')}`];
  const missing =
    drift.missing.length === 0 ? [] : [`links its [Install] makes are missing: ${drift.missing.join(', ')}`];
  return [...stray, ...missing].join('; ');
};
