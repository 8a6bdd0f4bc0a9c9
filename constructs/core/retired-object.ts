/**
 * Retiring a managed object: `removed` blocks that make the next apply run the object's destroy
 * hook and drop it from the state. Deleting a construct outright would drop it from the state
 * without running the hook, leaving the object behind on the target.
 */
import { Construct } from 'constructs';
import { Lazy, TerraformStack } from './cdk';
import { handlerAsset } from './handler-asset';
import { addressName, claimName, destroyHook } from './object-address';
import { targetLabel } from './target-batch';

export interface RetiredObjectProps {
  /** The handler domain, as its `ManagedObject` declared it. */
  readonly domain: string;
  /**
   * Path of the handler bundle, for a domain of your own.
   *
   * @default - the built-in bundle of `domain`
   */
  readonly handlerBundle?: string;
  /** The object kind, as its `ManagedObject` declared it. */
  readonly kind: string;
  /** Connection settings, as its `ManagedObject` declared them: the destroy hook acts there. */
  readonly target: Readonly<Record<string, unknown>>;
  /**
   * The target's label, as its `ManagedObject` declared it (`batchLabel`).
   *
   * @default - `<domain>_<digest of the target>`
   */
  readonly batchLabel?: string;
  /**
   * Prefix of the Terraform addresses, as its `ManagedObject` had it.
   *
   * @default - the enclosing construct's path below the stack, with `/` turned into `_`
   */
  readonly name?: string;
}

/**
 * Needs Terraform 1.9 or newer (provisioners in `removed` blocks). Once an apply has removed the
 * object, the construct can be deleted; while it stays, it plans nothing.
 */
export class RetiredObject extends Construct {
  /** The Terraform address prefix. */
  readonly name: string;

  constructor(scope: Construct, id: string, props: RetiredObjectProps) {
    super(scope, id);
    const stack = TerraformStack.of(this);
    this.name = claimName(this, props.name ?? addressName(scope));
    const handler = handlerAsset(this, props.domain, props.handlerBundle).path;
    const label = targetLabel({ domain: props.domain, handler, target: props.target, label: props.batchLabel });
    removedBlocks(stack).push({
      from: `terraform_data.${this.name}_lifecycle`,
      lifecycle: { destroy: true },
      provisioner: [{ 'local-exec': destroyHook(handler, props.kind, props.target, label) }],
    });
  }
}

const blocksByStack = new WeakMap<TerraformStack, object[]>();

/** The stack's `removed` list; a second override of the same key would replace the first. */
const removedBlocks = (stack: TerraformStack): object[] => {
  let blocks = blocksByStack.get(stack);
  if (blocks === undefined) {
    const list: object[] = [];
    blocks = list;
    blocksByStack.set(stack, list);
    stack.addOverride('removed', Lazy.anyValue({ produce: () => list }));
  }
  return blocks;
};
