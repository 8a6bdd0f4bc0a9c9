/**
 * A drop-in: `<directory>/<unit>.d/<name>.conf`, the way to change a distribution's unit without
 * replacing its file. The spec re-checked at the handler boundary, and its pure diff.
 */
import * as z from 'zod/mini';
import { sha256Hex } from '../core/canonical';
import { describeDiff, type FieldDiff } from '../core/protocol';
import type { UnitContent } from './render-unit';
import { START_TIMEOUT_SECONDS, type LiveUnit, unitContent, unitDirectory } from './unit';
import { short } from './unit-diff';
import { unitNameProblem } from './unit-name';

/** A drop-in's name: one path segment that cannot hide (no leading dot) or walk out (no slash). */
export const DROP_IN_NAME = /^[A-Za-z0-9_@-][A-Za-z0-9_.@-]{0,99}$/;

const unitName = z.string().check(z.refine((name) => unitNameProblem(name) === undefined, 'a valid systemd unit name'));

export const dropInIdentity = z.object({
  unit: unitName,
  name: z.string().check(z.regex(DROP_IN_NAME, 'letters, digits and _ . @ - (no leading dot)')),
  directory: unitDirectory,
});

export const dropInSpec = z.object({
  ...dropInIdentity.shape,
  content: unitContent,
  startTimeoutSeconds: z._default(
    z.number().check(z.int(), z.gte(START_TIMEOUT_SECONDS.min), z.lte(START_TIMEOUT_SECONDS.max)),
    START_TIMEOUT_SECONDS.default,
  ),
});

export type DropInIdentity = z.infer<typeof dropInIdentity>;
export type DropInSpec = z.infer<typeof dropInSpec>;
/** A drop-in's spec as its construct synthesizes it: content may still be sections (`unitContent`). */
export type DeclaredDropInSpec = Omit<DropInSpec, 'content'> & { readonly content: UnitContent };

export const dropInDirectory = (dropIn: DropInIdentity): string => `${dropIn.directory}/${dropIn.unit}.d`;
export const dropInPath = (dropIn: DropInIdentity): string => `${dropInDirectory(dropIn)}/${dropIn.name}.conf`;

/** The file differs, or systemd has not loaded it yet. */
export const diffDropIn = (spec: DropInSpec, live: LiveUnit): FieldDiff => {
  const changes: Record<string, { live: unknown; want: unknown }> = {};
  const want = sha256Hex(spec.content);
  if (live.fileSha256 !== want) changes.file = { live: short(live.fileSha256), want: short(want) };
  if (live.status.needDaemonReload) changes.NeedDaemonReload = { live: 'yes', want: 'no' };
  return changes;
};

export const summarizeDropIn = (spec: DropInSpec, host: string, live: LiveUnit, changes: FieldDiff): string => {
  const name = `drop-in ${dropInPath(spec)} on ${host}`;
  if (live.fileSha256 === undefined) return `${name} is absent`;
  return Object.keys(changes).length === 0 ? `${name} is in sync` : `${name} differs: ${describeDiff(changes)}`;
};
