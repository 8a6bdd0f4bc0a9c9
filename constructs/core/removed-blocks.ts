/**
 * The stack's `removed` blocks, one list per stack (a retired or forgotten construct's, and the
 * tombstones of removed constructs), and its `moved` blocks (renamed constructs' lifecycles): a second
 * override of the same key would replace the first.
 */
import { Lazy, type TerraformStack } from './cdk';

const blocksByStack = new WeakMap<TerraformStack, Map<string, object[]>>();

/** The stack's list of `key` blocks, created on first use. */
const blocksOf = (stack: TerraformStack, key: 'removed' | 'moved'): object[] => {
  const lists = blocksByStack.get(stack) ?? new Map<string, object[]>();
  blocksByStack.set(stack, lists);
  let blocks = lists.get(key);
  if (blocks === undefined) {
    const list: object[] = [];
    blocks = list;
    lists.set(key, list);
    stack.addOverride(key, Lazy.anyValue({ produce: () => list }));
  }
  return blocks;
};

/** The stack's `removed` list, created on first use. */
export const removedBlocks = (stack: TerraformStack): object[] => blocksOf(stack, 'removed');

/** The stack's `moved` list, created on first use. */
export const movedBlocks = (stack: TerraformStack): object[] => blocksOf(stack, 'moved');
