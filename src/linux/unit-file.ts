/**
 * A unit file on a host, a unit's or a drop-in's: its content (text, or sections judged by the
 * same rules at synth and, for values Terraform knew only at apply, at the handler boundary), where
 * it lives, how long a job on it may take, and where apply records what it acted on. Written once
 * so a unit and a drop-in cannot judge the same content two ways.
 */
import * as z from 'zod/mini';
import type { PropTable } from '../core/definition';
import { isRecord } from '../core/records';
import { integer, type Problem, type Rule } from '../core/rules';
import {
  contentText,
  type Known,
  type TextWithValues,
  type UnitSection,
  unitSectionProblems,
  valueProblems,
} from './render-unit';
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

const contentRule: Rule = (value) =>
  typeof value === 'string' || isSections(value) || isTextWithValues(value) ? undefined : CONTENT_RULE;

/**
 * Every broken rule of the sections of `content` (sections `renderUnit` rendered included), with
 * `known` standing in for the values Terraform substitutes only at apply. Text written as text is
 * written as is.
 */
export const contentProblems = (content: unknown, known?: Known): Problem[] => {
  if (isTextWithValues(content)) return valueProblems(content).map((says) => ({ prop: 'content', says }));
  return (isSections(content) ? unitSectionProblems(content, known) : []).map((says) => ({ prop: 'content', says }));
};

/** The props of a unit file, a unit's or a drop-in's. */
export const FILE_PROPS = {
  content: { rule: contentRule, required: true },
  directory: { rule: unitDirectoryRule, default: '/etc/systemd/system' },
  startTimeoutSeconds: {
    rule: integer(START_TIMEOUT_SECONDS.min, START_TIMEOUT_SECONDS.max),
    default: START_TIMEOUT_SECONDS.default,
  },
} as const satisfies PropTable;

/**
 * A unit file or drop-in: text, or sections or text that held Terraform values at synth. Those values
 * are known only now, so they are judged again here by `contentProblems`, before the text they make
 * is compared with the host's file or written to it.
 */
export const unitContent = z.pipe(
  z.union(
    [
      z.string(),
      z.array(z.object({ name: z.string(), lines: z.array(z.tuple([z.string(), z.string()])) })),
      z.object({ pieces: z.array(z.string()).check(z.maxLength(MAX_PIECES)) }),
    ],
    { error: CONTENT_RULE },
  ),
  z.transform((content, ctx) => {
    const problems = [
      ...(contentRule(content) === undefined ? [] : [{ says: `must be ${CONTENT_RULE}` }]),
      ...contentProblems(content),
    ];
    for (const problem of problems) ctx.issues.push({ code: 'custom', message: problem.says, input: content });
    return problems.length === 0 ? contentText(content) : z.NEVER;
  }),
);

export const unitPath = (unit: { readonly directory: string; readonly name: string }): string =>
  `${unit.directory}/${unit.name}`;

/** Where apply records the restartOn digest it last acted on. */
export const RESTART_ON_DIR = '/var/lib/cdktf-homelab/restart-on';

export const restartOnPath = (unit: { readonly name: string }): string => `${RESTART_ON_DIR}/${unit.name}`;
