/**
 * The one reader of [Install] settings, as systemd 252's config_parse reads a unit file for `systemctl enable`:
 * whether `enabled` is possible (unit-enable.ts) and which links enable makes (unit-install.ts) both read through
 * it, and the links read's awk (links-command.ts) picks a file's [Install] lines by the same rules. Two parsers stood
 * side by side and disagreed with each other and with systemd (measured on 252, test/unit/src/linux/
 * install-settings.test.ts): `WantedBy= \` before a blank line was a setting for one and a reset for the other,
 * `X-Foo=\` swallowed the next line's WantedBy= for one only, a comment inside a continuation became a word, a
 * header inside one started a section, and a file with CR line ends had no [Install] for the links read.
 * Also which drop-ins enable reads: a unit's own `.d/` and its template's, never a prefix's (`a-.service.d/`)
 * nor a type's (`service.d/`), which pid1 loads and enable ignores (measured, systemd 252).
 */
import { CONTINUED, LINE_END } from './render-unit';
import { instanceOf } from './unit-name';

/** The [Install] keys enable reads on 252 (install.c), and 254's UpheldBy=. */
export const INSTALL_KEYS = ['WantedBy', 'RequiredBy', 'UpheldBy', 'Alias', 'Also', 'DefaultInstance'] as const;
export type InstallKey = (typeof INSTALL_KEYS)[number];

/** One assignment of an [Install] key, its value stripped; an empty value resets the key. */
export interface InstallSetting {
  readonly key: InstallKey;
  readonly value: string;
}

/** systemd's WHITESPACE, which strstrip() and skip_leading_chars() take: not JavaScript's `\s`. */
const WS = '[ \\t\\n\\r]';
const COMMENT = new RegExp(`^${WS}*[#;]`);
const STRIP = new RegExp(`^${WS}+|${WS}+$`, 'g');
const WORDS = new RegExp(`${WS}+`);

/** A logical line and the physical line (1-based) it starts on. */
export interface LogicalLine {
  readonly text: string;
  readonly line: number;
}

/**
 * A file's lines as config_parse reads them: a line whose first character past whitespace is `#` or `;` is
 * skipped, inside a continuation too (and does not continue); an odd run of backslashes at a line's end joins
 * the next line, the backslash read as a space; a continuation the file ends in is read as it stands.
 */
export const numberedLines = (physical: readonly string[]): LogicalLine[] => {
  const lines: LogicalLine[] = [];
  let pending: LogicalLine | undefined;
  physical.forEach((line, index) => {
    if (COMMENT.test(line)) return;
    const joined = { text: (pending?.text ?? '') + line, line: pending?.line ?? index + 1 };
    pending = CONTINUED.test(line) ? { ...joined, text: `${joined.text.slice(0, -1)} ` } : undefined;
    if (pending === undefined) lines.push(joined);
  });
  return pending === undefined ? lines : [...lines, pending];
};

/** The logical lines' texts alone. */
export const logicalLines = (physical: readonly string[]): string[] => numberedLines(physical).map(({ text }) => text);

/**
 * The [Install] settings of logical lines, in order: a line starting `[` (stripped) names the section;
 * elsewhere `key=value`, both stripped, keys and section names exact in case; a line without `=` is ignored.
 */
const settingsOfLines = (lines: readonly string[], inInstall: boolean): InstallSetting[] => {
  const settings: InstallSetting[] = [];
  let install = inInstall;
  for (const line of lines) {
    const stripped = line.replace(STRIP, '');
    if (stripped.startsWith('[')) install = stripped === '[Install]';
    const at = stripped.indexOf('=');
    if (!install || stripped.startsWith('[') || at <= 0) continue;
    const key = stripped.slice(0, at).replace(STRIP, '');
    const value = stripped.slice(at + 1).replace(STRIP, '');
    if (INSTALL_KEYS.some((known) => known === key)) settings.push({ key: key as InstallKey, value });
  }
  return settings;
};

/** The [Install] settings of one file's text (a UTF-8 byte order mark at its start skipped, as systemd does). */
export const installSettings = (text: string): InstallSetting[] =>
  settingsOfLines(logicalLines(text.replace(/^\uFEFF/, '').split(LINE_END)), false);

/** The settings of lines within an [Install] section, as the links read's awk prints them. */
export const sectionSettings = (lines: readonly string[]): InstallSetting[] =>
  settingsOfLines(logicalLines(lines), true);

/**
 * Each key's words once every setting is read in order (a file's, then its drop-ins'): a value adds its words,
 * an empty one resets the key (measured, systemd 252), and DefaultInstance= names one instance, the last.
 */
export const installValues = (settings: readonly InstallSetting[]): Map<InstallKey, string[]> => {
  const values = new Map<InstallKey, string[]>();
  for (const { key, value } of settings) {
    const words = value === '' ? [] : value.split(WORDS);
    const kept = key === 'DefaultInstance' ? [] : (values.get(key) ?? []);
    values.set(key, words.length === 0 ? [] : [...kept, ...words]);
  }
  return values;
};

/**
 * Whether `systemctl enable` of `unit` reads the drop-in at `path`: one in `<unit>.d/` or, for an instance, in
 * `<template>.d/` (measured, systemd 252). pid1 also loads a prefix's (`a-.service.d/` for `a-b.service`) and a
 * type's (`service.d/`), whose [Install] enable ignores: `is-enabled` stays `static` (measured, systemd 252).
 */
export const enableReadsDropIn = (unit: string, path: string): boolean =>
  [`${unit}.d`, `${instanceOf(unit) ?? unit}.d`].includes(path.split('/').at(-2) ?? '');

/**
 * The prefix units whose drop-ins pid1 applies to `unit` and enable ignores: `a-b-.service` and `a-.service` for
 * `a-b-c.service` (an instance: by the name before its `@`), not `unit` itself.
 */
export const prefixUnitsOf = (unit: string): string[] => {
  const dot = unit.lastIndexOf('.');
  const stem = unit.slice(0, dot);
  const prefix = stem.includes('@') ? stem.slice(0, stem.indexOf('@')) : stem;
  const names: string[] = [];
  for (let at = prefix.indexOf('-', 1); at >= 0; at = prefix.indexOf('-', at + 1))
    names.push(`${prefix.slice(0, at + 1)}${unit.slice(dot)}`);
  return names.filter((name) => name !== unit);
};
