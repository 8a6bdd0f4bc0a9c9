/**
 * The stack's `removed` blocks, one list per stack (a retired or forgotten construct's, and the
 * tombstones of removed constructs): a second override of the same key would replace the first.
 */
import { Lazy, type TerraformStack } from './cdk';

const blocksByStack = new WeakMap<TerraformStack, object[]>();

/** The stack's `removed` list, created on first use. */
export const removedBlocks = (stack: TerraformStack): object[] => {
  let blocks = blocksByStack.get(stack);
  if (blocks === undefined) {
    const list: object[] = [];
    blocks = list;
    blocksByStack.set(stack, list);
    stack.addOverride('removed', Lazy.anyValue({ produce: () => list }));
  }
  return blocks;
};
