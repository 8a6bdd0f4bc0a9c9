/**
 * Which stack an object belongs to (issue 27, README Adoption: two stacks). A target that can hold a mark of
 * ownership (a unit's record, a drop-in's mark, a Repo's annotation) holds the identity of the stack that
 * made or adopted the object, so that a second stack declaring the same object reads it as another stack's,
 * refuses it even with `adopt: true`, and never deletes it. Without it the mark was per host: a second stack
 * read the first one's unit as in sync, and its destroy deleted the first stack's running unit (the probe).
 *
 * The identity is the app's context `cdktf-homelab:stackId` when set, else the TerraformStack's id. It is
 * plain data, a short name of safe characters, so it can sit in a mark's line, a label value and a hook's
 * environment unchanged; it is checked at synth and again where a handler receives it.
 */
import { HandlerError } from './errors';
import { bounded } from './parse';

/** The context key whose value names the stack in its marks; unset means the TerraformStack's id. */
export const STACK_ID_CONTEXT = 'cdktf-homelab:stackId';

/**
 * A stack identity: what a Kubernetes label value takes (63 characters, alphanumeric at both ends, `-`, `_`
 * and `.` inside), which also keeps it one word in a unit's record line.
 */
export const STACK_ID = /^[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$/;

/** The rule in words, for an error at synth. */
export const STACK_ID_RULE = '1 to 63 letters, digits, ".", "_" or "-", starting and ending with a letter or digit';

/** The stack identity a handler received (the read's `.stack`, a hook's HOMELAB_STACK), or undefined if none. */
export const receivedStackId = (value: string | undefined, field: string): string | undefined => {
  if (value === undefined || value === '') return undefined;
  if (STACK_ID.test(value)) return value;
  throw new HandlerError('Invalid stack identity', `${field} must be ${STACK_ID_RULE}, got ${bounded(value)}`);
};

/**
 * Whether a mark naming `markStack` makes the object another stack's, for a run of `stack`. A mark that
 * names no stack (written before marks named stacks) and a run that does not know its stack (a by-hand
 * read) both count as this stack's, as they did before.
 */
export const isOtherStack = (markStack: string | undefined, stack: string | undefined): markStack is string =>
  markStack !== undefined && stack !== undefined && markStack !== stack;

/**
 * Whether a destroy run for `stack` must leave an object whose mark names `markStack`: another stack's, and any
 * stack's when the run names none. Reads and applies take a run without a stack for the mark's own (a by-hand
 * read, an older synth); a destroy by hand must say which stack it acts for (HOMELAB_STACK), or a by-hand
 * destroy could delete another stack's running unit.
 */
export const destroyLeaves = (markStack: string | undefined, stack: string | undefined): markStack is string =>
  markStack !== undefined && markStack !== stack;

/** What a destroy says of an object it leaves by `destroyLeaves`. */
export const leftByStack = (markStack: string, stack: string | undefined): string =>
  stack === undefined
    ? `marked by stack "${markStack}", and this destroy names no stack: left as it is (a destroy by hand acts ` +
      `for the stack HOMELAB_STACK names)`
    : `marked by stack "${markStack}", not this stack "${stack}": left as it is (that stack manages it)`;

/** What a read, an apply and a destroy say of an object another stack's mark names. */
export const otherStackText = (where: string, markStack: string, stack: string): string =>
  `exists on ${where}, marked by stack "${markStack}", not this stack "${stack}"`;
