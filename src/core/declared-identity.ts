/**
 * A destroy hook's object as the configuration declares it now (HOMELAB_DECLARED): the identity fields that name it,
 * apart from those that say how destroy acts on it (a Repo's deleteOnDestroy and version). A change of a setting
 * replaces the lifecycle, whose digest covers the whole identity as earlier versions stored it, and the hook of that
 * replacement ran with the stored setting: turning a Repo's deleteOnDestroy off deleted it (an audit, 2026-12-05).
 */
import * as z from 'zod/mini';
import { canonicalJson } from './canonical';
import { show } from './errors';
import { parseAs, parseJson } from './parse';
import { ENV } from './protocol';

const declaredSchema = z.object({
  names: z.record(z.string(), z.unknown()),
  settings: z.record(z.string(), z.unknown()),
});
export type Declared = z.infer<typeof declaredSchema>;

/** What the hook does: destroy `identity`, or leave the object and say why (`kept`). */
export type DeclaredDestroy = { readonly identity: Readonly<Record<string, unknown>> } | { readonly kept: string };

/** The hook's declaration, when its kind's identity holds settings. */
export const declaredIn = (env: NodeJS.ProcessEnv): Declared | undefined =>
  env[ENV.declared] === undefined
    ? undefined
    : parseAs(declaredSchema, parseJson(env[ENV.declared], ENV.declared), ENV.declared);

const same = (a: unknown, b: unknown): boolean => canonicalJson(a ?? null) === canonicalJson(b ?? null);

/**
 * An object the configuration still declares (each name as stored) with another setting is left as it is: the hook
 * runs because the apply replaces its lifecycle to record the setting. A destroy run before that apply cannot be
 * told from it, and leaves the object too, still marked. An object no longer declared (a name changed) is destroyed
 * as the configuration says destroy acts now, as `adopt` is: turning deleteOnDestroy off never deletes.
 */
export const withDeclared = (stored: Readonly<Record<string, unknown>>, declared: Declared): DeclaredDestroy => {
  const names = Object.entries(declared.names);
  if (!names.every(([key, value]) => same(stored[key], value)))
    return { identity: { ...stored, ...declared.settings } };
  const changed = Object.entries(declared.settings).filter(([key, value]) => !same(stored[key], value));
  if (changed.length === 0) return { identity: stored };
  const object = names.map(([key, value]) => `${key} ${show(value)}`).join(', ');
  const changes = changed.map(([key, value]) => `${key} ${show(stored[key])}, now ${show(value)}`).join('; ');
  return {
    kept:
      `${object}: still declared by this stack, ${changes}: left as it is (the apply replaces its lifecycle to ` +
      "record the change; a destroy run before that apply leaves it too, marked as this stack's: apply, then destroy)",
  };
};
