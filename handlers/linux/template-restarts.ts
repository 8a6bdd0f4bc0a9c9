/**
 * The running instances a template drop-in's destroy restarts without it, read one way by the destroy and by the plan
 * that removes the drop-in: those of its template that no stack's record or intent names (template-runs.ts
 * `removalRestarts`). Read two ways, the plan would name other instances than the destroy restarts.
 */
import { type DropInIdentity, dropInPath } from '../../src/linux/systemd-drop-in';
import { removalRestarts, removalRestartWords } from '../../src/linux/template-runs';
import { dropInEntryOf } from '../../src/linux/unit-batch';
import type { LiveUnit } from '../../src/linux/unit-control';
import { restartOnPath } from '../../src/linux/unit-file';
import { unitIntentPath } from '../../src/linux/unit-intent';
import { isTemplate } from '../../src/linux/unit-name';
import { destroyMayAct } from '../../src/linux/unit-ownership';
import { readUnits } from './read-units';
import type { HostSession } from './session';

/** What the destroy of the drop-in read as `live` restarts without it: its template's undeclared running instances. */
export const undeclaredRuns = async (session: HostSession, live: LiveUnit): Promise<string[]> => {
  const runs = (live.templateRuns ?? []).map((run) => run.name);
  if (runs.length === 0) return [];
  const entries = runs.map((name) => ({
    unit: name,
    record: restartOnPath({ name }),
    intent: unitIntentPath({ name }),
  }));
  const read = await readUnits(session, entries);
  const stacks = new Set(
    read.flatMap(([entry, unit]) => (unit.restartOn === undefined && unit.intent === undefined ? [] : [entry.unit])),
  );
  return removalRestarts(live, (name) => stacks.has(name));
};

/**
 * For each drop-in a plan removes, its destroy's restarts in words (`removalRestartWords`), or undefined: a plain
 * unit's drop-in, one its destroy leaves (another stack's, or neither marked nor adopted: `destroyMayAct`), one whose
 * template runs no undeclared instance. One read of the template drop-ins, then one per drop-in with running instances.
 */
export const readRemovalRestarts = async (
  session: HostSession,
  removals: ReadonlyArray<{ readonly identity: DropInIdentity; readonly adopt: boolean }>,
  stack: string | undefined,
): Promise<Array<string | undefined>> => {
  const templates = removals.filter(({ identity }) => isTemplate(identity.unit));
  const words = new Map<DropInIdentity, string | undefined>();
  if (templates.length > 0) {
    const read = await readUnits(
      session,
      templates.map(({ identity }) => dropInEntryOf(identity)),
    );
    for (const [index, [, live]] of read.entries()) {
      const removal = templates[index];
      if (removal === undefined || !destroyMayAct(live, removal.adopt, stack)) continue;
      const place = `drop-in ${dropInPath(removal.identity)} on ${session.host}`;
      words.set(removal.identity, removalRestartWords(place, await undeclaredRuns(session, live)));
    }
  }
  return removals.map(({ identity }) => words.get(identity));
};
