/**
 * The names this library and the jr2 node caches share: the custom resources' group and plurals, and the annotation
 * a fetch ask raises on a Sandbox. Defined once, so the handler that asks and the agent that answers never drift.
 */
export const CR_GROUP = 'core.jr2.dev';
export const REPOS = 'repos';
export const SANDBOXES = 'sandboxes';

/** The annotation whose value (an RFC 3339 second) asks the node caches to fetch Repo `key` into a Sandbox. The seed
 * names the function but not its value; the key is the annotation's name part, which the fetch's key rule keeps to
 * 63 characters (repo-fetch.ts). */
export const askedAnnotation = (key: string): string => `fetch-asked.${CR_GROUP}/${key}`;

/** The label a stated (bound) Repo carries; the seed names it LABEL_REPO_BOUND without its value. */
export const LABEL_REPO_BOUND = `${CR_GROUP}/bound`;
/** The annotation holding the identity a Repo was stated for (seed: ANNOTATION_REPO_IDENTITY). */
export const ANNOTATION_REPO_IDENTITY = `${CR_GROUP}/identity`;
/**
 * This library's own: the stack whose Repo it is (stack-id.ts), beside the bound label and the identity annotation
 * every version writes. A second stack reads a Repo naming another stack as that stack's, refuses it even with
 * `adopt: true` and never deletes it (issue 27). A Repo an earlier version marked carries no such annotation and
 * counts as the stack's that declares it; its next apply writes it.
 */
export const ANNOTATION_REPO_STACK = `${CR_GROUP}/stack`;
/** Written by attaches only, never by a stack: a boot is not an attach (seed: ANNOTATION_REPO_LAST_ATTACHED). */
export const ANNOTATION_REPO_LAST_ATTACHED = `${CR_GROUP}/last-attached`;
