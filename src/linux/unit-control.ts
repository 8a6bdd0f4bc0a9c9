/**
 * What a unit and a template's instance both declare, once: whether it is enabled and running, what
 * restarts it, how long its jobs may take and whether apply may unmask it. Both kinds' declarations
 * take these fields, so their props, specs, boundary and discover cannot drift apart on one of them
 * (issue 29: they were written three times here, as props, spec rules and a zod shape).
 */
import { digestOf } from '../core/canonical';
import { optional, type SpecOf } from '../core/fields';
import { boolean, type Rule, text } from '../core/rules';
import { START_TIMEOUT_FIELDS } from './unit-file';
import type { DropInRemovals } from './drop-in-traces';
import type { StartedWith, UnitIntent } from './unit-intent';
import type { UnitLinks } from './unit-links';
import type { FileStat } from './file-stat';
import type { Overridden } from './unit-loaded';
import type { UnitStatus } from './unit-state';

const strings: Rule<readonly string[]> = (value) =>
  Array.isArray(value) && value.every((item) => typeof item === 'string') ? undefined : 'a list of strings';

/** The fields a unit and an instance share, in the order their specs carry them. */
export const CONTROL_FIELDS = {
  /**
   * Whether the unit is enabled (its [Install] links exist; an instance's are its template's, made for it):
   * `true` for good, its links under /etc; `false` with no links, under /run neither (`enable --runtime`).
   * Left out, it is false for a unit whose [Install] (an instance: its template's) names no WantedBy=,
   * RequiredBy=, Alias= or Also=, which `systemctl enable` cannot link (systemd calls it `static`), and `true`
   * there is refused. The [Install] of the stack's `SystemdDropIn`s of the unit on its host (an instance: of it and
   * of its template) counts as its own, as systemd reads it. Ignored for a template once any of its instances is
   * enabled (systemd then calls it `indirect`). A template is not enabled unless said so: its instances are.
   */
  enabled: optional({ rule: boolean, default: true, spec: true }),
  /**
   * Whether the unit runs. A unit declared `false` that a timer starts is left alone while its run is in
   * progress; a crash-looping one is stopped. A template is not started, and must not be: its instances are.
   */
  started: optional({ rule: boolean, default: true, spec: true }),
  /**
   * Strings whose change restarts the unit while it runs, e.g. digests of the config files it reads. Only
   * their digest is stored; Terraform takes it where a string, or the list, is a Terraform value. An
   * instance's always include its template's content, so a changed template restarts its running instances.
   */
  restartOn: optional({
    rule: strings,
    default: [],
    spec: true,
    encode: digestOf,
    later: 'digest',
    specForm: text('a sha256 digest', /^[0-9a-f]{64}$/),
    formOnly: true,
  }),
  ...START_TIMEOUT_FIELDS,
  /**
   * Let apply unmask the unit: it removes a `/dev/null` mask link (never a real file) in the unit's directory,
   * /etc/systemd/system or /run/systemd/system. Without it, apply on a masked unit fails and says how to unmask it;
   * a mask elsewhere (`system.control`, /run/systemd/transient) is refused either way, naming it (unit-mask.ts).
   */
  unmask: optional({ rule: boolean, default: false, spec: true }),
};

/** A unit as apply and diff see it: a `SystemdUnit` has `content`, an instance has none of its own. */
export type DesiredUnit = { readonly name: string; readonly directory: string } & SpecOf<typeof CONTROL_FIELDS> & {
    readonly content?: string;
  };

/** A running instance of a declared template that the stack does not declare, and its start (Unix seconds). */
export interface TemplateRun {
  readonly name: string;
  readonly startedAt?: number;
}

/** What one read of the host found. */
export interface LiveUnit {
  readonly status: UnitStatus;
  /** sha256 of the unit file, undefined when there is no file (or none is read, for an instance). */
  readonly fileSha256: string | undefined;
  /**
   * The unit file's stamp (ctime, device:inode, size: unit-loaded.ts) when read: what the plan says of a file that
   * differs, and what its basis holds of it, since a digest of its content could be tested against guesses offline.
   */
  readonly fileStat?: FileStat;
  /**
   * A unit's file is a symbolic link (`systemctl link`, or put by hand in the file's place): `systemctl disable`
   * removes it with the unit's links, so the apply writes the file in its place first (unit-read.ts).
   */
  readonly fileIsLink?: boolean;
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
  /** When the newest of those files last changed (its ctime, which no tool sets back), in Unix seconds. */
  readonly contentChangedAt?: number;
  /** systemd loads another file in place of the declared one (unit-loaded.ts). */
  readonly overridden?: Overridden;
  /** Its [Install] links under /etc and /run, and those its [Install] makes (unit-links.ts), when read. */
  readonly links?: UnitLinks;
  /** A template's drop-in: its template's running instances the stack does not declare (template-runs.ts). */
  readonly templateRuns?: readonly TemplateRun[];
  /** A template's drop-in: when its file last changed (its ctime), in Unix seconds. */
  readonly fileChangedAt?: number;
  /**
   * Its drop-ins on disk as path and `<ctime> <device:inode>` (unit-basis.ts `dropInStamps`), never their content's
   * digest: the plan's reading of them travels to the apply through the state.
   */
  readonly dropInStamps?: ReadonlyArray<readonly [string, string]>;
  /** Those of its drop-ins that carry a mark or intent, with the stack it names (drop-in-marks.ts). */
  readonly dropInMarks?: ReadonlyMap<string, string | undefined>;
  /** A batch apply's read: the host's drop-in traces and the marked drop-ins gone (drop-in-traces.ts). */
  readonly dropInRemovals?: DropInRemovals;
}
