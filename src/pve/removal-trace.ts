/**
 * Which staged interface deletions are this stack's own (issue 27). A network apply reloads a node only
 * when every staged change there is the stack's, and the deletion of an interface removed from the code
 * counts as the stack's. Which ones were removed comes from the record, which anyone can edit: an entry
 * naming an interface the stack never created made the apply reload the deletion someone else had staged.
 * So the interface's own destroy, which Terraform runs only for a lifecycle in the state, notes each
 * deletion it stages here, and the network apply counts a staged deletion as the stack's only when noted.
 *
 * A note is an empty file per stack, node and interface in the user's private state directory (the one
 * last-good.ts keeps, 0700), written when the hook stages the deletion and dropped when a reload made it
 * live or an apply stages the interface again. It lives on the machine that runs Terraform: the hook and
 * the network apply run in one `terraform apply`. A note that is lost (another machine, a cleaned temp
 * directory) makes the apply refuse the deletion as someone else's, naming it: never the reverse.
 */
import { closeSync, constants, lstatSync, openSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { digestOf } from '../core/canonical';
import { privateDir } from '../core/http/last-good';

/** The notes of one stack's staged deletions; without a stack (a run by hand) nothing is noted or known. */
export interface RemovalTraces {
  /** Notes that this stack's destroy staged the deletion of `iface` on `node`; a failure costs a refusal. */
  note(node: string, iface: string): void;
  /** Whether this stack's destroy staged it. */
  has(node: string, iface: string): boolean;
  /** Forgets it: a reload made it live, or the interface is staged again. */
  drop(node: string, iface: string): void;
}

const { O_WRONLY, O_CREAT, O_NOFOLLOW } = constants;

/** The notes of `stack` under `base` (stateBase of the run's environment). */
export const removalTraces = (stack: string | undefined, base: string): RemovalTraces => {
  const path = (node: string, iface: string): string | undefined => {
    const dir = stack === undefined ? undefined : privateDir(base);
    return dir === undefined ? undefined : join(dir, `pve-removal-${digestOf([stack, node, iface]).slice(0, 32)}`);
  };
  return {
    note: (node, iface) => {
      const file = path(node, iface);
      if (file === undefined) return;
      try {
        closeSync(openSync(file, O_WRONLY | O_CREAT | O_NOFOLLOW, 0o600));
      } catch {
        // not noted: the apply refuses this deletion as someone else's, naming it
      }
    },
    has: (node, iface) => {
      const file = path(node, iface);
      if (file === undefined) return false;
      try {
        const stat = lstatSync(file);
        return stat.isFile() && stat.uid === process.getuid?.();
      } catch {
        return false;
      }
    },
    drop: (node, iface) => {
      const file = path(node, iface);
      if (file !== undefined) rmSync(file, { force: true });
    },
  };
};
