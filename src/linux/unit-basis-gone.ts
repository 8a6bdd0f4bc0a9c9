/**
 * Which drop-ins the plan read (unit-basis.ts) are gone when the apply acts, and which of those refuse the object:
 * one that must stay (unmarked, or another stack's) always; one of the stack's unless a destroy of the same apply
 * removed it, as its trace on the host says (drop-in-traces.ts). Without that trace a drop-in of the stack's removed
 * by hand after the plan went unrefused, and the restart the plan named took its unit live without it.
 */
import type { DropInRemovals } from './drop-in-traces';
import { stampDigest, UNSEEN } from './unit-basis-file';
import { instanceOf } from './unit-name';

type Stamp = readonly [string, string];

/** What the plan listed of a unit's drop-ins, by digest: all, and those no destroy of its stack may remove. */
export interface PlannedDropIns {
  readonly dropIns?: ReadonlySet<string>;
  readonly stays?: ReadonlySet<string>;
}

/** How many drop-ins are gone that must stay, how many of the stack's no trace accounts for, and their paths. */
export interface Gone {
  readonly stays: number;
  readonly own: number;
  readonly named: readonly string[];
}

/** A drop-in's digest as read, and as a read that could not stat it (`UNSEEN`) holds it. */
const seenOrNot = ([path, stamp]: Stamp): string[] => [stampDigest([path, stamp]), stampDigest([path, UNSEEN])];

/**
 * The drop-ins the plan read that are not on disk now (`now`) as it read them: none without the plan's `stays` (a
 * basis of an earlier version refuses none gone). Those of the stack's are named by the marks left in the unit's
 * directories (or its template's) with their file gone, where as many are left as are gone.
 */
export const goneSince = (
  { dropIns, stays }: PlannedDropIns,
  now: readonly Stamp[],
  removals: DropInRemovals | undefined,
  unit: string,
): Gone => {
  if (stays === undefined || dropIns === undefined) return { stays: 0, own: 0, named: [] };
  const there = new Set(now.flatMap(seenOrNot));
  const traced = new Set([...(removals?.traced ?? [])].flatMap(seenOrNot));
  const own = [...dropIns].filter((digest) => !stays.has(digest) && !there.has(digest) && !traced.has(digest));
  const dirs = [unit, instanceOf(unit)].flatMap((name) => (name === undefined ? [] : [`/${name}.d/`]));
  const named = (removals?.markedGone ?? []).filter((path) => dirs.some((dir) => path.includes(dir)));
  return { stays: [...stays].filter((digest) => !there.has(digest)).length, own: own.length, named };
};

/** Whether anything gone refuses the object. */
export const refusesGone = ({ stays, own }: Gone): boolean => stays > 0 || own > 0;

/** The paths of the traces that account for a drop-in the plan read (`dropIns`) and the apply finds gone. */
export const tracesUsed = (
  dropIns: ReadonlySet<string> | undefined,
  now: readonly Stamp[],
  removals: DropInRemovals | undefined,
): string[] => {
  if (dropIns === undefined) return [];
  const there = new Set(now.flatMap(seenOrNot));
  return [...(removals?.traced ?? [])].flatMap((trace) =>
    seenOrNot(trace).some((digest) => dropIns.has(digest) && !there.has(digest)) ? [trace[0]] : [],
  );
};

/** What is gone, in words: those that had to stay, then those of the stack's no destroy of this apply removed. */
export const goneWords = ({ stays, own, named }: Gone): string => {
  const were = (count: number) => (count === 1 ? 'was' : 'were');
  const kept = stays === 1 ? '1 drop-in it had then was removed' : `${stays} drop-ins it had then were removed`;
  const whose =
    named.length === own ? `${named.join(', ')}, the stack's,` : `${own} drop-in${own === 1 ? '' : 's'} of the stack's`;
  return [
    ...(stays > 0 ? [kept] : []),
    ...(own > 0 ? [`${whose} ${were(own)} removed, not by a destroy of this apply`] : []),
  ].join('; ');
};
