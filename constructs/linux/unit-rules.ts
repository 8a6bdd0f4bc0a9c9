/**
 * The synth-time rules every unit-shaped construct (unit, instance, drop-in) shares, written once so a
 * unit directory, a start deadline or a unit file's sections are refused with the same words
 * whichever construct holds them.
 */
import type { Construct } from 'constructs';
import { ValidationError } from '../../src/core/errors';
import { sectionsOf, type UnitContent, unitSectionProblems, unitText } from '../../src/linux/render-unit';
import { START_TIMEOUT_SECONDS } from '../../src/linux/unit';
import { UNIT_DIRECTORY } from '../../src/linux/unit-name';
import { hasToken } from '../core/encode';
import { check, checkPattern, checkRange, knownText } from '../core/validate';

/** An absolute directory of plain path characters that cannot climb out with `..`. */
export const checkUnitDirectory = (scope: Construct, directory: string): void => {
  checkPattern(scope, 'directory', directory, UNIT_DIRECTORY, 'an absolute path of letters, digits and . _ -');
  check(scope, !directory.split('/').includes('..'), 'directory', 'a path without ..', directory);
};

/** `startTimeoutSeconds` within what the handler polls for. */
export const checkStartTimeout = (scope: Construct, seconds: number | undefined): void =>
  checkRange(scope, 'startTimeoutSeconds', seconds, START_TIMEOUT_SECONDS.min, START_TIMEOUT_SECONDS.max);

/**
 * `content` as the spec carries it, every broken rule of its sections reported at once (sections
 * `renderUnit` rendered included). Sections holding a Terraform value stay sections, so the handler
 * checks the value Terraform substitutes by the same rules. Sections known in full were judged here
 * and ship as text, so the spec, and the digest that replaces converge, of a stack stays as it was.
 */
export const checkedContent = (scope: Construct, content: UnitContent): UnitContent => {
  const sections = typeof content === 'string' ? sectionsOf(content) : content;
  if (sections === undefined) return content;
  const problems = unitSectionProblems(sections, knownText);
  if (problems.length > 0) {
    throw new ValidationError(scope.node.path, problems.map((problem) => `content: ${problem}`).join('; '));
  }
  if (hasToken(sections)) return sections;
  return typeof content === 'string' ? content : unitText(sections);
};
