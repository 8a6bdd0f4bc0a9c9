/**
 * What a unit's destroy and undo removed, as the root helper's destroy-unit and remove-unit steps
 * (root-helper-script.ts) print it: its file, its restartOn record and intent, and every link to the file
 * that `systemctl enable` made ([Install] WantedBy=, RequiredBy=, Alias=). A link left behind keeps a
 * removed unit wanted, and `systemctl disable` skips a masked unit's links and cannot read a removed
 * file's [Install], so the helper finds the links by where they point. A /dev/null mask is someone's
 * decision: it is reported and stays. What cannot be removed is named, so the destroy fails naming it.
 * A destroy request removes many units, each in its own part of the output, so one unit's failure fails
 * that unit alone.
 */
import type { LiveUnit } from './unit-control';
import { recordText } from './unit-intent';

/**
 * Whether pid1 still has the file at `path` loaded (the unit's FragmentPath, or among its DropInPaths) that is gone
 * from disk: a destroy stopped between its removal and its daemon-reload leaves it so, its mark gone with the file,
 * and until a reload a restart still runs the unit from it (measured, systemd 252: a removed drop-in's Environment=
 * stayed). The next destroy, which finds it absent, reloads.
 */
export const goneButLoaded = (live: LiveUnit, path: string): boolean =>
  live.fileSha256 === undefined &&
  (live.status.fragmentPath === path || (live.status.dropInPaths ?? []).includes(path));

/**
 * Whether pid1 still holds an instance enabled whose links are gone from disk (`show` says enabled, `is-enabled` not):
 * an instance's destroy stopped between its disable and its daemon-reload leaves it so, its record gone, and until a
 * reload its target still wants it: a `systemctl start multi-user.target` started it again (measured, systemd 252).
 */
export const enabledInPid1Only = (live: LiveUnit): boolean =>
  (live.status.shownUnitFileState ?? '').startsWith('enabled') && !live.status.unitFileState.startsWith('enabled');

/** What a destroy that found its object absent and still loaded by pid1 says once it reloaded. */
export const RELOADED_ABSENT = 'already absent; systemd still had it loaded: reloaded systemd';

/**
 * The record a drop-in's destroy writes for its unit (`unit`, read with its record) before it removes the drop-in
 * (`dropIn`, as read): that the process running now was started with the content it is about to leave, so the unit's
 * read, comparing content under the same InvocationID (unit-stale.ts), says the restart is pending. Without it a
 * process started by another than the unit's last apply (the drop-in's own apply restarts it) was judged by ctimes,
 * which a removal leaves as they were: the plan was in sync while the process ran the removed drop-in (measured,
 * systemd 252). Undefined when there is nothing to record: no record (not a unit a stack reads), no process running,
 * no file to remove, or its content or run unread.
 */
export const runBeforeRemoval = (unit: LiveUnit, dropIn: LiveUnit): string | undefined => {
  const { content, fileSha256, status } = dropIn;
  if (unit.restartOn === undefined || fileSha256 === undefined || status.activeState !== 'active') return undefined;
  if (content === undefined || status.invocation === undefined || status.invocation === '') return undefined;
  return recordText(unit.restartOn, { content, invocation: status.invocation }, unit.recordStack);
};

/**
 * What the step did: the paths removed, the masks kept, the paths left (with why), and whether systemd
 * must reload to let go of the unit; the load state is the caller's, read after that reload.
 */
export interface RemovalReport {
  readonly removed: readonly string[];
  readonly masks: readonly string[];
  readonly left: readonly string[];
  readonly loadState?: string;
  readonly reload: boolean;
}

export const parseRemoval = (stdout: string): RemovalReport => {
  const removed: string[] = [];
  const masks: string[] = [];
  const left: string[] = [];
  let reload = false;
  for (const line of stdout.split('\n')) {
    const [word = '', ...rest] = line.split(' ');
    const text = rest.join(' ');
    if (word === 'removed') removed.push(text);
    else if (word === 'kept') masks.push(text);
    else if (word === 'left') left.push(text);
    else if (line === 'reload') reload = true;
  }
  return { removed, masks, left, reload };
};

/** One unit's part of a destroy request's output: its report, or the output of the systemctl that failed. */
export interface RemovalSection {
  readonly name: string;
  readonly report: RemovalReport;
  /** The failed command's output, a line each; undefined when nothing failed. */
  readonly failed?: readonly string[];
  /** Whether the part ran to its end (its end line) or to its failure: a part cut short is neither. */
  readonly complete: boolean;
}

/** The parts of a request of destroy-unit steps, in the order of its steps: each opens with `unit <name>`. */
export const parseRemovals = (stdout: string): RemovalSection[] => {
  const parts: Array<{ name: string; lines: string[] }> = [];
  for (const line of stdout.split('\n')) {
    if (line.startsWith('unit ')) parts.push({ name: line.slice('unit '.length), lines: [] });
    else parts.at(-1)?.lines.push(line);
  }
  return parts.map(({ name, lines }) => {
    const failed = lines.filter((line) => line === 'failed' || line.startsWith('failed ')).map((line) => line.slice(7));
    const report = parseRemoval(lines.join('\n'));
    const complete = failed.length > 0 || lines.includes('end');
    return { name, report, complete, ...(failed.length > 0 ? { failed } : {}) };
  });
};
