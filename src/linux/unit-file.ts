/**
 * A unit file on a host, a unit's or a drop-in's: the fields both declare (its content, text or sections
 * judged by the same rules at synth and, for values Terraform knew only at apply, at the handler boundary;
 * where it lives; how long a job on it may take) and where apply records what it acted on. Declared once so
 * a unit and a drop-in cannot judge the same content two ways.
 */
import { optional, required } from '../core/fields';
import { isRecord } from '../core/records';
import { integer, type Problem, type Rule } from '../core/rules';
import {
  type Known,
  type TextWithValues,
  type UnitContent,
  type UnitSection,
  unitSectionProblems,
  valueProblems,
} from './render-unit';
import { RESTART_ON_DIR } from './state-paths';
import { headerProblems } from './unit-headers';
import { unitDirectoryRule } from './unit-name';

/** How long start, restart and stop may take before apply fails. */
export const START_TIMEOUT_SECONDS = { default: 90, min: 1, max: 3600 } as const;

const CONTENT_RULE = 'text, or sections of [key, value] lines';
/** Bounds a hand-written spec's text with values; a construct makes one piece per value and between two. */
const MAX_PIECES = 1024;

const isString = (value: unknown): value is string => typeof value === 'string';

const isLine = (line: unknown): line is readonly [string, string] =>
  Array.isArray(line) && line.length === 2 && line.every(isString);

const isSection = (value: unknown): value is UnitSection =>
  isRecord(value) && typeof value.name === 'string' && Array.isArray(value.lines) && value.lines.every(isLine);

const isSections = (value: unknown): value is readonly UnitSection[] => Array.isArray(value) && value.every(isSection);

const isTextWithValues = (value: unknown): value is TextWithValues => {
  const pieces = isRecord(value) ? value.pieces : undefined;
  return Array.isArray(pieces) && pieces.length % 2 === 1 && pieces.length <= MAX_PIECES && pieces.every(isString);
};

/**
 * Every broken rule of the sections of `content` (sections `renderUnit` rendered included), with
 * `known` standing in for the values Terraform substitutes only at apply. Text written as text is
 * written as is, once each section header in it is whole (unit-headers.ts).
 */
export const contentProblems = (content: unknown, known?: Known): Problem[] => {
  const problems = isTextWithValues(content)
    ? [
        ...valueProblems(content),
        ...headerProblems(content.pieces.map((piece, i) => (i % 2 === 0 ? piece : 'x')).join('')),
      ]
    : isSections(content)
      ? unitSectionProblems(content, known)
      : typeof content === 'string'
        ? headerProblems(known === undefined ? content : (known(content) ?? ''))
        : [];
  return problems.map((says) => ({ prop: 'content', says }));
};

/** Whether `value` is content a spec may carry: a prop's text or sections, or text with values. */
export const isUnitContent = (value: unknown): value is UnitContent =>
  typeof value === 'string' || isSections(value) || isTextWithValues(value);

/** What a spec may carry as content: a prop's text or sections, or the text with values a construct ships. */
const specContentRule: Rule<UnitContent> = (value) => (isUnitContent(value) ? undefined : CONTENT_RULE);

/** What a `content` prop may be: text or sections (`renderUnit`'s included). */
const contentRule: Rule<string | readonly UnitSection[]> = (value) =>
  typeof value === 'string' || isSections(value) ? undefined : CONTENT_RULE;

/** A directory as the spec carries it: without a trailing slash, so one directory is one identity. */
const trimmed = (value: unknown): unknown => (typeof value === 'string' ? value.replace(/\/+$/, '') : value);

/** The fields of a unit file, a unit's or a drop-in's, in the order their specs carry them. */
export const FILE_FIELDS = {
  /**
   * The directory the file goes in (a drop-in's: the one holding `<unit>.d/`). Changing it replaces the
   * unit or drop-in.
   */
  directory: optional({
    rule: unitDirectoryRule,
    default: '/etc/systemd/system',
    spec: true,
    identity: true,
    encode: trimmed,
  }),
  /**
   * The file: its text, or sections (as is, or rendered with `renderUnit`). No section name, key or value
   * may hold a newline, carriage return or NUL, nor a value end in a backslash (each would add or swallow
   * lines): checked at synth, and for a Terraform value again when apply knows it. In text, a Terraform
   * value may stand only in a directive's value (after its `=`), and is held to the same rules: it can never
   * add a line. A section header in text stands alone on its line (`[Install]`, nothing after its `]`), which
   * systemd refuses the whole file over otherwise.
   *
   * Text or sections given whole as a Terraform value are refused: synth holds each value in them to a directive's
   * value.
   */
  content: required({
    rule: contentRule,
    spec: true,
    specForm: specContentRule,
    formOnly: true,
    atSynth: "synth holds each Terraform value in text or sections to a directive's value; they may hold values",
  }),
};

/** How long start, restart and stop may take: a unit's, an instance's, and a drop-in's restart of its unit. */
export const START_TIMEOUT_FIELDS = {
  /**
   * Seconds that start, restart and stop may take. Apply waits for the unit to become active (or inactive)
   * and fails after this long with its state and last journal lines; a plan reports a unit declared started
   * that is still activating after this long. A drop-in's bounds the restart of its unit after a change.
   */
  startTimeoutSeconds: optional({
    rule: integer(START_TIMEOUT_SECONDS.min, START_TIMEOUT_SECONDS.max),
    default: START_TIMEOUT_SECONDS.default,
    spec: true,
  }),
};

export const unitPath = (unit: { readonly directory: string; readonly name: string }): string =>
  `${unit.directory}/${unit.name}`;

export const restartOnPath = (unit: { readonly name: string }): string => `${RESTART_ON_DIR}/${unit.name}`;
