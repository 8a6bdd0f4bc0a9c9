/**
 * The specs a unit, a template's instance and a drop-in synthesize, re-checked at the handler
 * boundary, and what one read of a host says about a unit. A tampered spec fails naming the field
 * before any of it reaches a command line.
 */
import * as z from 'zod/mini';
import { type UnitContent, unitSectionProblems, unitText } from './render-unit';
import { UNIT_DIRECTORY, instanceOf, isTemplate, unitNameProblem } from './unit-name';
import type { UnitStatus } from './unit-state';

/** A unit name by systemd's rules, re-checked by the handler before it reaches a command line. */
const unitName = z.string().check(z.refine((name) => unitNameProblem(name) === undefined, 'a valid systemd unit name'));

/** An absolute directory with no `..`, so `<directory>/<name>` cannot walk out of it. */
export const unitDirectory = z.string().check(
  z.regex(UNIT_DIRECTORY, 'an absolute path of letters, digits and . _ -'),
  z.refine((dir) => !dir.split('/').includes('..'), 'a path without ..'),
);

const digest = z.string().check(z.regex(/^[0-9a-f]{64}$/, 'a sha256 digest'));

/** How long start, restart and stop may take before apply fails. */
export const START_TIMEOUT_SECONDS = { default: 90, min: 1, max: 3600 } as const;
const startTimeoutSeconds = z._default(
  z.number().check(z.int(), z.gte(START_TIMEOUT_SECONDS.min), z.lte(START_TIMEOUT_SECONDS.max)),
  START_TIMEOUT_SECONDS.default,
);

const unitSection = z.object({ name: z.string(), lines: z.array(z.tuple([z.string(), z.string()])) });

/**
 * A unit file or drop-in: text, or sections that held Terraform values at synth. Those values are
 * known only now, so the sections' rules are checked again here, before the text they render to
 * is compared with the host's file or written to it.
 */
export const unitContent = z.pipe(
  z.union([z.string(), z.array(unitSection)], 'text, or sections of [key, value] lines'),
  z.transform((content, ctx) => {
    if (typeof content === 'string') return content;
    const problems = unitSectionProblems(content);
    if (problems.length === 0) return unitText(content);
    ctx.issues.push({ code: 'custom', message: problems.join('; '), input: content });
    return z.NEVER;
  }),
);

/** What every unit spec shares: whether it is enabled and running, and how apply treats it. */
const controlled = {
  name: unitName,
  directory: unitDirectory,
  enabled: z.boolean(),
  started: z.boolean(),
  /** Digest of the `restartOn` strings; its move restarts a running unit. */
  restartOn: digest,
  startTimeoutSeconds,
  /** Let apply remove a /dev/null mask link instead of failing on a masked unit. */
  unmask: z._default(z.boolean(), false),
};

/** What names a unit: all that destroy gets. */
export const unitIdentity = z.object({ name: unitName, directory: unitDirectory });

/** The spec a `SystemdUnit` synthesizes. */
export const unitSpec = z.object({ ...controlled, content: unitContent });

/** The spec a template's instance synthesizes: no file of its own, its template's name. */
export const instanceSpec = z.object({ ...controlled, template: unitName }).check(
  z.refine((spec) => isTemplate(spec.template) && instanceOf(spec.name) === spec.template, {
    message: 'name must be an instance of template (foo@bar.service of foo@.service)',
    path: ['name'],
  }),
);

/** What names an instance: its name and where a mask link of it would be. */
export const instanceIdentity = z.object({ name: unitName, directory: unitDirectory });

export type UnitSpec = z.infer<typeof unitSpec>;
/** A unit's spec as its construct synthesizes it: content may still be sections (`unitContent`). */
export type DeclaredUnitSpec = Omit<UnitSpec, 'content'> & { readonly content: UnitContent };
export type InstanceSpec = z.infer<typeof instanceSpec>;
export type UnitIdentity = z.infer<typeof unitIdentity>;

/** A unit as apply and diff see it: a `SystemdUnit` has `content`, an instance has none of its own. */
export interface DesiredUnit extends Omit<UnitSpec, 'content' | 'startTimeoutSeconds' | 'unmask'> {
  readonly content?: string;
  readonly startTimeoutSeconds?: number;
  readonly unmask?: boolean;
}

/** What one read of the host found. */
export interface LiveUnit {
  readonly status: UnitStatus;
  /** sha256 of the unit file, undefined when there is no file (or none is read, for an instance). */
  readonly fileSha256: string | undefined;
  /** The restartOn digest recorded by the last apply, undefined when none was. */
  readonly restartOn: string | undefined;
  /** Seconds the unit has been in its current state, when systemd said since when. */
  readonly stateSeconds?: number;
}

export const unitPath = (spec: Pick<UnitSpec, 'directory' | 'name'>): string => `${spec.directory}/${spec.name}`;

/** Where apply records the restartOn digest it last acted on. */
export const RESTART_ON_DIR = '/var/lib/cdktf-homelab/restart-on';

export const restartOnPath = (unit: Pick<UnitSpec, 'name'>): string => `${RESTART_ON_DIR}/${unit.name}`;

export const timeoutOf = (unit: Pick<DesiredUnit, 'startTimeoutSeconds'>): number =>
  unit.startTimeoutSeconds ?? START_TIMEOUT_SECONDS.default;
