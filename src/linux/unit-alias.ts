/**
 * An instance's alias its template's [Install] does not make: a link beside the units, of another name, to the
 * template's file (`b@x.service -> a@.service`, by hand or left by an old Alias=), which pid 1 honours
 * (`Names=a@x.service b@x.service`). `systemctl disable` and `reenable` of the instance leave it, `reenable` of
 * the alias refuses an alias name, and only the template's disable removes it, with every instance's links
 * (measured, systemd 252). So the plan said the apply re-enables such an instance, the apply did, its read-back
 * failed and its undo ran: the apply failed after changing things. Now the read says so, and the apply refuses
 * the instance before any change to it (handlers/linux/unit-refusals.ts), in the words here. A template's alias of
 * another name made by hand (`x@.service -> a@.service`) is honoured for every instance (`Names=a@y.service
 * x@y.service`), and only the template's disable or reenable removes it (`disable x@.service` too disables a@.service
 * whole), with every instance's links (measured, systemd 252): it read in sync; now the same, in its own words.
 */
import { isTemplate } from './unit-name';
import { typedWord } from './shell';

const baseName = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

/** An alias of a template (`x@.service`), not of one instance. */
const ofTemplate = (paths: readonly string[]): boolean => paths.some((path) => isTemplate(baseName(path)));

/**
 * What the read says of such aliases (`paths`, each its full path), an instance's or `template`'s: why it cannot
 * compare the links.
 */
export const leftAliases = (paths: readonly string[], template?: string) => {
  const one = paths.length === 1;
  const what = `${paths.join(', ')}, ${one ? 'an alias' : 'aliases'} its [Install] does not make`;
  const why =
    template === undefined
      ? `${one ? 'stays' : 'stay'} through systemctl disable and reenable`
      : `which systemd gives every instance as ${one ? 'a name' : 'names'} too and only systemctl disable ` +
        `${template} removes, with every instance's links`;
  return { unknown: `${what}, ${why} (measured)`, aliases: paths };
};

/** What the apply does about them, in the plan's words. */
export const aliasApplyWords = (paths: readonly string[]): string =>
  `the apply refuses it, removing ${paths.length === 1 ? 'that alias' : 'those aliases'} by hand ends it`;

/**
 * The aliases the apply refuses a unit over: those its [Install] does not make, read (unit-links.ts) for a unit
 * declared enabled, whatever is-enabled says (`disabled` once its own links are gone: measured); undefined for
 * one declared disabled, whose disable leaves them as they are and is done.
 */
export const refusedAliases = (
  enabled: boolean,
  links: { readonly aliases?: readonly string[] } | undefined,
): readonly string[] | undefined =>
  enabled && links?.aliases !== undefined && links.aliases.length > 0 ? links.aliases : undefined;

/** Why the apply refuses it, and how to end that: the error's detail, before "nothing was changed". */
export const aliasRefusalWords = (paths: readonly string[]): string => {
  const one = paths.length === 1;
  const why = ofTemplate(paths)
    ? `which systemd gives every instance as ${one ? 'a name' : 'names'} too and only its disable removes, with ` +
      "every instance's links"
    : `which systemd gives it as ${one ? 'a name' : 'names'} too and systemctl disable and reenable leave`;
  const fix = `remove ${one ? 'it' : 'them'} by hand (rm ${paths.map(typedWord).join(' ')}) and apply again`;
  return `${paths.join(', ')}, ${why} (measured); ${fix}`;
};
