/**
 * One object's course through a host's batch apply, and the helpers that run a step over many:
 * what each object changed is recorded as it happens, so its undo reverts that and nothing else,
 * and a failure stays the failing object's own while the others go on.
 */
import type { Log } from '../../src/core/kind';
import { mapConcurrent } from '../../src/core/pool';
import { ConnectionLost } from '../../src/linux/ssh';
import type { LinkVerb } from '../../src/linux/root-helper';
import type { LiveUnit } from '../../src/linux/unit-control';
import type { BatchItem } from '../../src/linux/unit-batch';
import type { Relinked } from '../../src/linux/unit-intent';

/** Commands in flight at once: below the SSH connection's channel limit. */
export const IN_FLIGHT = 8;

/** One object's course through the transaction: what it changed, so its undo reverts that alone. */
export interface Track {
  readonly item: BatchItem;
  /** Its log lines, prefixed with its name. */
  readonly log: Log;
  /** Read before anything was changed. */
  readonly before: LiveUnit;
  /**
   * The stack its intent and record name (issue 27): the run's, else (a by-hand apply, which knows none)
   * the one its mark already named, so such an apply never strips a stack's mark.
   */
  readonly stack?: string;
  /** Read after the reload: what its job is decided from. */
  loaded: LiveUnit;
  /** Its write replaced a file, which the root helper kept to put back (`restoreStep`). */
  replaced?: boolean;
  /** Its intent is on the host (unit-intents.ts). */
  intended: boolean;
  unmasked: boolean;
  wrote: boolean;
  /** How it was enabled or disabled, when it was. */
  switched?: LinkVerb;
  /** The name that was: a template's default instance where only its links were re-enabled (unit-diff.ts). */
  switchedAs?: string;
  /** The instances its rewrite (a template's) re-enabled, so their links follow its new [Install] (unit-relink.ts). */
  instances?: Relinked;
  /** Its own /run links were made again from its new file (unit-relink.ts `ownRuntimeAgain`): its undo unlinks them. */
  runtimeAgain?: true;
  /** A start or restart was queued for it (a drop-in: its unit's restart). */
  started: boolean;
  said: boolean;
  /** Why it was refused before anything was changed: reported as it is. */
  refused?: Error;
  /** Why it failed once the host may have changed: reported with its undo and its state. */
  cause?: Error;
  /** The object before it that was not applied. */
  blockedBy?: string;
}

export const trackOf = (item: BatchItem, before: LiveUnit, log: Log, stack?: string): Track => ({
  item,
  before,
  ...(stack === undefined ? {} : { stack }),
  loaded: before,
  intended: false,
  unmasked: false,
  wrote: false,
  started: false,
  said: false,
  log: (line) => log(`${item.name}: ${line}`),
});

export const isActive = (track: Track): boolean =>
  track.refused === undefined && track.cause === undefined && track.blockedBy === undefined;
export const active = (tracks: readonly Track[]): Track[] => tracks.filter(isActive);
export const unitTracks = (tracks: readonly Track[]): Track[] =>
  tracks.filter((track) => track.item.change.sort !== 'drop-in');

export const say = (track: Track, line: string): void => {
  track.said = true;
  track.log(line);
};

/**
 * `work` on each active track, `IN_FLIGHT` at once; its failure is that track's alone. A lost
 * connection is every track's, so it ends the transaction.
 */
export const each = async (
  tracks: readonly Track[],
  work: (track: Track) => Promise<unknown>,
  as: 'refused' | 'cause' = 'cause',
): Promise<void> => {
  await mapConcurrent(active(tracks), IN_FLIGHT, async (track) => {
    try {
      await work(track);
    } catch (error) {
      if (error instanceof ConnectionLost) throw error;
      track[as] = error instanceof Error ? error : new Error(String(error));
    }
  });
};

/** `work` once for all of `tracks`; its failure is that of each one that had not failed already. */
export const all = async (
  tracks: readonly Track[],
  work: () => Promise<unknown>,
  as: 'refused' | 'cause' = 'cause',
): Promise<void> => {
  try {
    await work();
  } catch (error) {
    if (error instanceof ConnectionLost) throw error;
    for (const track of tracks) track[as] ??= error instanceof Error ? error : new Error(String(error));
  }
};

/** Marks each active track that comes after one not applied; reference order sees a blocker first. */
export const block = (tracks: readonly Track[]): void => {
  const stopped = new Set<string>();
  for (const track of tracks) {
    const blocker = isActive(track) ? track.item.after.find((name) => stopped.has(name)) : undefined;
    if (blocker !== undefined) track.blockedBy = blocker;
    if (!isActive(track)) stopped.add(track.item.name);
  }
};
