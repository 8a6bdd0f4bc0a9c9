/**
 * systemd's own rules for a unit name (src/basic/unit-name.c, unit_name_is_valid), checked at
 * synth so a bad name fails with the rule it broke instead of as a confusing remote error.
 */
import type { Rule } from '../core/rules';

export const UNIT_TYPES = [
  'service',
  'socket',
  'device',
  'mount',
  'automount',
  'swap',
  'target',
  'path',
  'timer',
  'slice',
  'scope',
] as const;

const NAME_MAX = 255;
const CHARS = /^[A-Za-z0-9:_.\\@-]+$/;

/** Why `name` is not a valid unit name, or undefined when it is. */
export const unitNameProblem = (name: string): string | undefined => {
  if (name.length === 0) return 'non-empty';
  if (name.length > NAME_MAX) return `at most ${NAME_MAX} characters`;
  const dot = name.lastIndexOf('.');
  const type = name.slice(dot + 1);
  if (dot <= 0 || !(UNIT_TYPES as readonly string[]).includes(type)) {
    return `a name ending in a unit type (.${UNIT_TYPES.join(', .')})`;
  }
  const stem = name.slice(0, dot);
  if (!CHARS.test(stem)) return 'made of letters, digits and : _ . \\ - @ before the type suffix';
  const at = stem.indexOf('@');
  if (at === 0) return 'a name whose template prefix before @ is not empty';
  return undefined;
};

/** `unitNameProblem` as a props rule: anything but a string is not a unit name either. */
export const unitNameRule: Rule = (value) =>
  typeof value === 'string' ? unitNameProblem(value) : 'a unit name such as node-check.service';

/** A template (`foo@.service`) cannot be started itself; only its instances can. */
export const isTemplate = (name: string): boolean => /@\.[a-z]+$/.test(name);

/** A unit directory: absolute, made of plain path characters. */
const UNIT_DIRECTORY = /^(\/[A-Za-z0-9._-]+)+\/?$/;

/** An absolute directory of plain path characters with no `..`, so `<directory>/<name>` cannot walk out. */
export const unitDirectoryRule: Rule = (value) => {
  if (typeof value !== 'string' || !UNIT_DIRECTORY.test(value)) return 'an absolute path of letters, digits and . _ -';
  return value.split('/').includes('..') ? 'a path without ..' : undefined;
};

/** The template an instance name comes from (`foo@bar.service` → `foo@.service`), or undefined. */
export const instanceOf = (name: string): string | undefined => {
  const match = /^([^@]+)@(.+)\.([a-z]+)$/.exec(name);
  return match === null ? undefined : `${match[1]}@.${match[3]}`;
};
