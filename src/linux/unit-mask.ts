/**
 * Where a unit's mask is, and whether the apply's unmask can remove it. It prevents a plan that said "apply unmasks
 * it (unmask: true)" for a /dev/null link under /etc or /run `system.control` or /run/systemd/transient: the root
 * helper's unmask looks in the unit's directory, /etc/systemd/system and /run/systemd/system alone, logged
 * "unmasked" with the link still there, and the enable then failed naming the mask; `systemctl unmask` and
 * `unmask --runtime` leave it too, exit 0 (measured, systemd 252). FragmentPath names the link systemd loaded, so
 * the plan and the apply now refuse such a mask in the same words, naming the `rm` that ends it.
 */
import type { DesiredUnit } from './unit-control';
import { LINK_ROOTS } from './links-command';
import { typedWord } from './shell';
import type { UnitStatus } from './unit-state';
import { isMasked } from './unit-state';

/** The paths the root helper's unmask removes a /dev/null link at (root-helper-files.ts `masks`). */
export const unmaskedPaths = ({ name, directory }: Pick<DesiredUnit, 'name' | 'directory'>): string[] => [
  ...new Set([`${directory}/${name}`, `${LINK_ROOTS.etc}/${name}`, `${LINK_ROOTS.run}/${name}`]),
];

/** The mask systemd loaded where no unmask reaches: its path, or undefined when not masked or the apply can unmask. */
export const maskOutOfReach = (
  spec: Pick<DesiredUnit, 'name' | 'directory'>,
  status: Pick<UnitStatus, 'loadState' | 'unitFileState' | 'fragmentPath'>,
): string | undefined => {
  const { fragmentPath } = status;
  if (!isMasked(status) || fragmentPath === undefined) return undefined;
  return unmaskedPaths(spec).includes(fragmentPath) ? undefined : fragmentPath;
};

/** What to do about a mask: the apply unmasks only when told to, and only where its unmask reaches. */
export const unmaskAdvice = (
  spec: Pick<DesiredUnit, 'name' | 'directory' | 'unmask'>,
  status: Pick<UnitStatus, 'loadState' | 'unitFileState' | 'fragmentPath'>,
): string => {
  const out = maskOutOfReach(spec, status);
  if (out !== undefined)
    return (
      `the apply refuses it: ${out} masks it, which neither the apply's unmask nor systemctl unmask removes ` +
      `(measured); remove it by hand (rm ${typedWord(out)}) and apply again`
    );
  return spec.unmask === true
    ? 'apply unmasks it (unmask: true)'
    : `set unmask: true to let apply unmask it, or run systemctl unmask ${spec.name} on the host`;
};

/**
 * The plan's words for a masked unit: the apply unmasks it, or refuses it, saying how to end that (unit-refusal.ts
 * refuses the same units). The plan gave the advice alone where the apply refused.
 */
export const maskWords = (
  spec: Pick<DesiredUnit, 'name' | 'directory' | 'unmask'>,
  status: Pick<UnitStatus, 'loadState' | 'unitFileState' | 'fragmentPath'>,
): string => {
  const advice = unmaskAdvice(spec, status);
  return spec.unmask === true || maskOutOfReach(spec, status) !== undefined
    ? advice
    : `the apply refuses it: ${advice}`;
};
