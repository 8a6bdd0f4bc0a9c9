/**
 * The names this library and the jr2 node caches share: the custom resources' group and plurals, and the annotation
 * a fetch ask raises on a Sandbox. Defined once, so the handler that asks and the agent that answers never drift.
 */
export const CR_GROUP = 'core.jr2.dev';
export const REPOS = 'repos';
export const SANDBOXES = 'sandboxes';

/** The annotation whose value (an RFC 3339 second) asks the node caches to fetch Repo `key` into a Sandbox. The seed
 * names the function but not its value; the key is the annotation's name part, so it must be at most 63 characters. */
export const askedAnnotation = (key: string): string => {
  if (!/^[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$/.test(key)) {
    throw new Error(`repo key must be 1-63 letters, digits, '.', '_' or '-', got "${key}"`);
  }
  return `fetch-asked.${CR_GROUP}/${key}`;
};
