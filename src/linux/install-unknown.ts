/**
 * Why the read cannot tell the links `systemctl enable` makes, shared by the links' judgement (unit-install.ts) and
 * the host facts it resolves specifiers from (unit-facts.ts), so neither imports the other. A reading that says
 * enable itself refuses the unit carries `refused`: the plan then promises no convergence, where words alone decided
 * it before (a refusal worded otherwise got the footer saying the apply converges it).
 */

/**
 * Why the read cannot tell the links enable makes; `refused` when it is because `systemctl enable` itself refuses
 * the unit, so the apply's enable fails.
 */
export interface InstallUnknown {
  readonly unknown: string;
  readonly refused?: true;
}

/** Why enable fails, in the plan's words: the apply's enable fails the same way, with systemd's message. */
export const refused = (why: string): InstallUnknown => ({
  unknown: `systemctl enable refuses it (${why})`,
  refused: true,
});

/** Why the read cannot tell a unit's links, as its links carry it (unit-links.ts `UnitLinks`). */
export const unknownLinks = ({ unknown, refused: enableRefused }: InstallUnknown) =>
  enableRefused === true ? { unknown, enableRefused: true as const } : { unknown };
