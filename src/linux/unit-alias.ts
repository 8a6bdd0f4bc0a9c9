/**
 * An instance's alias its template's [Install] does not make: a link beside the units, of another name, to the
 * template's file (`b@x.service -> a@.service`, by hand or left by an old Alias=), which pid 1 honours
 * (`Names=a@x.service b@x.service`). `systemctl disable` and `reenable` of the instance leave it, `reenable` of
 * the alias refuses an alias name, and only the template's disable removes it, with every instance's links
 * (measured, systemd 252). So the plan said the apply re-enables such an instance, the apply did, its read-back
 * failed and its undo ran: the apply failed after changing things. Now the read says so, and the apply refuses
 * the instance before any change to it (handlers/linux/unit-refusals.ts), in the words here.
 */

/** What the read says of such aliases (`paths`, each its full path): why it cannot compare the links. */
export const leftAliases = (paths: readonly string[]) => ({
  unknown: `${paths.join(', ')}, ${paths.length === 1 ? 'an alias' : 'aliases'} its [Install] does not make, ${
    paths.length === 1 ? 'stays' : 'stay'
  } through systemctl disable and reenable (measured)`,
  aliases: paths,
});

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
  return (
    `${paths.join(', ')}, which systemd gives it as ${one ? 'a name' : 'names'} too and systemctl disable and ` +
    `reenable leave (measured); remove ${one ? 'it' : 'them'} by hand (rm ${paths.join(' ')}) and apply again`
  );
};
