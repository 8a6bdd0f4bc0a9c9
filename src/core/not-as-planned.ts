/**
 * The one refusal of an object that reads otherwise than its plan read it (the plan's basis: Reading.basis): every
 * kind says the same three things in the same words, what moved, what the apply left, and that a new plan reads it
 * as it is now. Each kind wrote the sentence of its own and they had begun to drift apart.
 */
import { HandlerError } from './errors';

/**
 * `<subject> cannot be applied as planned: <moved>, which the plan did not say; <left>: plan again, and that plan
 * reads <reread> as it is now`.
 */
export const notAsPlanned = (
  subject: string,
  moved: string,
  left = 'nothing was written',
  reread = 'it',
): HandlerError =>
  new HandlerError(
    `${subject} cannot be applied as planned`,
    `${moved}, which the plan did not say; ${left}: plan again, and that plan reads ${reread} as it is now`,
  );
