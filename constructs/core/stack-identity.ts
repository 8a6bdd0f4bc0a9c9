/**
 * The stack identity its objects' marks name (src/core/stack-id.ts), as the synth derives it: the app's
 * context `cdktf-homelab:stackId`, else the TerraformStack's id. An identity the rule refuses stops the
 * synth naming the stack and the context key, rather than reaching a hook or a mark.
 */
import type { Construct } from 'constructs';
import { ValidationError } from '../../src/core/errors';
import { STACK_ID, STACK_ID_CONTEXT, STACK_ID_RULE } from '../../src/core/stack-id';
import { TerraformStack } from './cdk';

/** The identity of the stack `scope` is in. */
export const stackIdOf = (scope: Construct): string => {
  const stack = TerraformStack.of(scope);
  const set: unknown = stack.node.tryGetContext(STACK_ID_CONTEXT);
  const id = set ?? stack.node.id;
  if (typeof id === 'string' && STACK_ID.test(id)) return id;
  const what =
    set === undefined ? `the stack's id ${JSON.stringify(id)}` : `${STACK_ID_CONTEXT} ${JSON.stringify(set)}`;
  throw new ValidationError(
    stack.node.path,
    `${what} names the stack in its objects' marks and must be ${STACK_ID_RULE}` +
      (set === undefined ? `: set the context ${STACK_ID_CONTEXT} to such a name` : ''),
  );
};
