/**
 * The synth-time rules every unit-shaped construct (unit, instance, drop-in) shares, written once so a
 * unit directory or a start deadline is refused with the same words whichever construct holds it.
 */
import type { Construct } from 'constructs';
import { START_TIMEOUT_SECONDS } from '../../src/linux/unit';
import { UNIT_DIRECTORY } from '../../src/linux/unit-name';
import { check, checkPattern, checkRange } from '../core/validate';

/** An absolute directory of plain path characters that cannot climb out with `..`. */
export const checkUnitDirectory = (scope: Construct, directory: string): void => {
  checkPattern(scope, 'directory', directory, UNIT_DIRECTORY, 'an absolute path of letters, digits and . _ -');
  check(scope, !directory.split('/').includes('..'), 'directory', 'a path without ..', directory);
};

/** `startTimeoutSeconds` within what the handler polls for. */
export const checkStartTimeout = (scope: Construct, seconds: number | undefined): void =>
  checkRange(scope, 'startTimeoutSeconds', seconds, START_TIMEOUT_SECONDS.min, START_TIMEOUT_SECONDS.max);
