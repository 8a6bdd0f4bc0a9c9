/**
 * What a unit and a template's instance both declare: whether it is enabled and running, what
 * restarts it, how long its jobs may take and whether apply may unmask it. One table for the props
 * at synth and one for the spec fields at the handler boundary, so the two kinds cannot drift
 * apart on the same field.
 */
import * as z from 'zod/mini';
import { type PropTable, propProblems, specCheck } from '../core/definition';
import { boolean, text, type Rule } from '../core/rules';
import { FILE_PROPS } from './unit-file';
import { unitDirectoryRule, unitNameRule } from './unit-name';
import type { StartedWith, UnitIntent } from './unit-intent';
import type { UnitStatus } from './unit-state';

const strings: Rule = (value) =>
  Array.isArray(value) && value.every((item) => typeof item === 'string') ? undefined : 'a list of strings';

/** The props a unit and an instance share. */
export const CONTROL_PROPS = {
  enabled: { rule: boolean, default: true },
  started: { rule: boolean, default: true },
  restartOn: { rule: strings, default: [] },
  startTimeoutSeconds: FILE_PROPS.startTimeoutSeconds,
  unmask: { rule: boolean, default: false },
} as const satisfies PropTable;

/** The fields every unit spec shares, by the rules of the props they come from. */
export const CONTROL_FIELDS = {
  name: { rule: unitNameRule, required: true },
  directory: { rule: unitDirectoryRule, required: true },
  enabled: { rule: boolean, required: true },
  started: { rule: boolean, required: true },
  /** Digest of the `restartOn` strings; its move restarts a running unit. */
  restartOn: { rule: text('a sha256 digest', /^[0-9a-f]{64}$/), required: true },
  startTimeoutSeconds: { rule: FILE_PROPS.startTimeoutSeconds.rule, required: true },
  unmask: { rule: boolean, required: true },
} as const satisfies PropTable;

/** The zod shape of `CONTROL_FIELDS`, which `specCheck` then judges by their rules. */
export const controlled = {
  name: z.string(),
  directory: z.string(),
  enabled: z.boolean(),
  started: z.boolean(),
  restartOn: z.string(),
  startTimeoutSeconds: z.number(),
  /** Let apply remove a /dev/null mask link instead of failing on a masked unit. */
  unmask: z.boolean(),
};

/** A unit's or an instance's identity (its name and directory), judged by the fields' rules. */
export const controlIdentity = (what: string) =>
  z
    .object({ name: z.string(), directory: z.string() })
    .check(
      specCheck((identity: { name: string; directory: string }) =>
        propProblems(what, { name: CONTROL_FIELDS.name, directory: CONTROL_FIELDS.directory }, identity),
      ),
    );

/** A unit as apply and diff see it: a `SystemdUnit` has `content`, an instance has none of its own. */
export type DesiredUnit = z.infer<z.ZodMiniObject<typeof controlled>> & { readonly content?: string };

/** What one read of the host found. */
export interface LiveUnit {
  readonly status: UnitStatus;
  /** sha256 of the unit file, undefined when there is no file (or none is read, for an instance). */
  readonly fileSha256: string | undefined;
  /** The restartOn digest recorded by the last apply, undefined when none was. */
  readonly restartOn: string | undefined;
  /** The stack the record names (unit-intent.ts); undefined without one, or an earlier version's naming none. */
  readonly recordStack?: string;
  /** Seconds the unit has been in its current state, when systemd said since when. */
  readonly stateSeconds?: number;
  /** What the last apply recorded the running process was started with (unit-intent.ts). */
  readonly startedWith?: StartedWith;
  /** The intent an apply left and never cleared: it did not finish (unit-intent.ts). */
  readonly intent?: UnitIntent;
  /** sha256 over the files systemd loaded the unit from (unit-read.ts), when each was read. */
  readonly content?: string;
  /** The newest modification time of those files, in Unix seconds. */
  readonly contentChangedAt?: number;
}
