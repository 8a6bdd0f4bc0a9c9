/**
 * systemd's own rules for a unit name (src/basic/unit-name.c, unit_name_is_valid), checked at
 * synth so a bad name fails with the rule it broke instead of as a confusing remote error. Stricter
 * where systemd's tools would read a name another way (issue 27): a leading `-` is an option to
 * systemctl however it is quoted, and a leading `.` makes a hidden file systemd's loader skips
 * (`..service`). A unit directory must be one systemd loads units from: a file elsewhere is never
 * loaded, and a path outside them (the system temp directory) is anyone's to plant links in.
 */
import type { Rule } from '../core/rules';
import { UNIT_DIRECTORIES } from './unit-directories';

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
  if (dot <= 0 || !UNIT_TYPES.some((known) => known === type)) {
    return `a name ending in a unit type (.${UNIT_TYPES.join(', .')})`;
  }
  const stem = name.slice(0, dot);
  if (!CHARS.test(stem)) return 'made of letters, digits and : _ . \\ - @ before the type suffix';
  if (/^[-.]/.test(stem)) return 'a name that starts with neither - nor .';
  const at = stem.indexOf('@');
  if (at === 0) return 'a name whose template prefix before @ is not empty';
  return undefined;
};

/** `unitNameProblem` as a props rule: anything but a string is not a unit name either. */
export const unitNameRule: Rule<string> = (value) =>
  typeof value === 'string' ? unitNameProblem(value) : 'a unit name such as node-check.service';

/** A template (`foo@.service`) cannot be started itself; only its instances can. */
export const isTemplate = (name: string): boolean => /@\.[a-z]+$/.test(name);

/** A unit directory: absolute, made of plain path characters. */
const UNIT_DIRECTORY = /^(\/[A-Za-z0-9._-]+)+\/?$/;

/** One of `UNIT_DIRECTORIES`, so `<directory>/<name>` is a file systemd loads and nothing else. */
export const unitDirectoryRule: Rule<string> = (value) => {
  if (typeof value !== 'string' || !UNIT_DIRECTORY.test(value)) return 'an absolute path of letters, digits and . _ -';
  if (value.split('/').includes('..')) return 'a path without ..';
  const directory = value.replace(/\/+$/, '');
  return UNIT_DIRECTORIES.some((known) => known === directory)
    ? undefined
    : `one of systemd's unit directories (${UNIT_DIRECTORIES.join(', ')})`;
};

/** The template an instance name comes from (`foo@bar.service` → `foo@.service`), or undefined. */
export const instanceOf = (name: string): string | undefined => {
  const match = /^([^@]+)@(.+)\.([a-z]+)$/.exec(name);
  return match === null ? undefined : `${match[1]}@.${match[3]}`;
};
