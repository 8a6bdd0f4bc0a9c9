/**
 * Where the systemd kinds keep their state on a host: one definition for the handlers, discover and the root
 * helper's script, which names the same folders (root-helper-script.ts: `KEPT=$STATE/kept`). Written twice, a path
 * could drift apart between the two, and an undo would look for a kept file where the helper never put it. The
 * script's text is its version (a host's helper of another text is refused), so it keeps naming them below $STATE.
 * A leaf: it imports nothing.
 */

/** Every stack's records, marks, intents and kept files. */
export const STATE_DIR = '/var/lib/cdktf-homelab';

/** The folders below STATE_DIR, by what they hold. */
export const STATE_FOLDERS = {
  /** The restartOn digest each unit's apply last acted on. */
  restartOn: 'restart-on',
  /** The marks of the drop-ins a stack made: the drop-in's own path below it (unit-ownership.ts). */
  dropInMarks: 'drop-ins',
  /** The intents: 0755, files 0644, like the records, so that a read login's plan sees them (issue 26). */
  intents: 'intents',
  /** The file a write replaced, root's alone, until the object's intent goes (a failed apply's undo puts it back). */
  kept: 'kept',
  /** A removed drop-in's trace: this folder, then the drop-in's path (drop-in-traces.ts). */
  dropInTraces: 'removed',
} as const;

export const RESTART_ON_DIR = `${STATE_DIR}/${STATE_FOLDERS.restartOn}`;
export const DROP_IN_MARK_DIR = `${STATE_DIR}/${STATE_FOLDERS.dropInMarks}`;
export const INTENT_DIR = `${STATE_DIR}/${STATE_FOLDERS.intents}`;
export const KEPT_DIR = `${STATE_DIR}/${STATE_FOLDERS.kept}`;
export const DROP_IN_TRACE_DIR = `${STATE_DIR}/${STATE_FOLDERS.dropInTraces}`;
