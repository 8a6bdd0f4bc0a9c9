/**
 * The apply's recheck of the objects its plan read absent (README, Adoption): for a kind whose target has no
 * place for a mark (a PVE metric server or interface), a lifecycle records at its creation what the plan read,
 * nothing for an absent object, and that record is all that says the object is the stack's. A saved plan
 * applied after another stack (or a hand) made such an object recorded it as this stack's and wrote over it,
 * and its destroy then deleted it (an audit, 2026-12-05). The apply's `data "external" "<label>_recheck"` runs
 * this before any of the target's lifecycles is created: one that exists now fails it, naming each, so no
 * lifecycle records it and nothing of the target is applied; the next plan reads it as found.
 */
import { readQuery } from './batch';
import { HandlerError } from './errors';
import type { HandlerDomain, KindContext } from './kind';
import { BATCH } from './protocol';

/**
 * Reads the objects the query's `.recheck` names (the plan's `.absent`) as the plan read them; the result
 * counts them when none exists now, else it throws naming every one that does.
 */
export const recheckBatch = async <S, T, C, R>(
  domain: HandlerDomain<S, T, string, C, R>,
  query: unknown,
  context: KindContext,
): Promise<Record<string, string>> => {
  const { names, readings, where } = await readQuery(domain, query, context, (all, fields) => {
    const wanted = new Set((fields[BATCH.recheck] ?? '').split(',').filter((name) => name !== ''));
    return all.filter((name) => wanted.has(name));
  });
  const appeared = names.filter((name) => readings.get(name)?.found !== undefined);
  if (appeared.length === 0) return { [BATCH.recheck]: String(names.length) };
  throw appearedError(where, appeared);
};

/** The objects that exist now though the plan read them absent, one line each, and what to do. */
export const appearedError = (where: string, names: readonly string[]): HandlerError =>
  new HandlerError(
    `${names.length} of the objects this apply's plan read absent exist now`,
    `they appeared after the plan (made by another stack or by hand): ${names
      .map((name) => `- ${name}: exists on ${where}, though the plan read it absent`)
      .join(' ')}; nothing on ${where} was applied and no lifecycle records them as this stack's: plan again, ` +
      'and the plan names them as not created by this stack (adopt: true on a construct adopts its object)',
  );
