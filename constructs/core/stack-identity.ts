/**
 * The stack identity its objects' marks name (src/core/stack-id.ts), as the synth derives it: the app's
 * context `cdktf-homelab:stackId`, else the TerraformStack's id. An identity the rule refuses fails the
 * synth naming the stack and the context key (problems.ts), rather than reaching a hook or a mark.
 */
import type { Construct } from 'constructs';
import { STACK_ID, STACK_ID_CONTEXT, STACK_ID_RULE } from '../../src/core/stack-id';
import { TerraformStack } from './cdk';
import { recordProblems } from './problems';

/** The identity of the stack `scope` is in. */
export const stackIdOf = (scope: Construct): string => {
  const stack = TerraformStack.of(scope);
  const set: unknown = stack.node.tryGetContext(STACK_ID_CONTEXT);
  const id = set ?? stack.node.id;
  if (typeof id === 'string' && STACK_ID.test(id)) return id;
  const says =
    `${JSON.stringify(id)} names the stack in its objects' marks and must be ${STACK_ID_RULE}` +
    (set === undefined ? `: set the context ${STACK_ID_CONTEXT} to such a name` : '');
  recordProblems(stack, [{ prop: set === undefined ? "the stack's id" : STACK_ID_CONTEXT, says }]);
  return String(id);
};
