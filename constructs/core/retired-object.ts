/**
 * Retiring a managed object: `removed` blocks that make the next apply run the object's destroy
 * hook and drop it from the state, or, forgotten, drop it from the state and leave it on its target.
 * Deleting a construct outright is planned the same way from the stack's record (tombstones.ts).
 */
import { Construct } from 'constructs';
import { stackIdOf } from './stack-identity';
import { TerraformStack } from './cdk';
import { handlerAsset, hookHandler } from './handler-asset';
import { addressName, claimName, destroyHook, requireHandlerNames } from './object-address';
import { removedBlocks } from './removed-blocks';
import { targetLabel } from './target-batch';
import { noteRetired } from './removals';
import { noteObject } from './tombstones';

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
  /**
   * Drop the object from the state and leave it on its target, instead of deleting it (`removed`
   * with `destroy = false`). The stack's record keeps it as forgotten, so deleting the construct
   * afterwards does not delete the object either.
   *
   * @default false
   */
  readonly forget?: boolean;
  /**
   * Whether its construct says `adopt: true`: a kind whose ownership the state keeps then deletes the
   * object even when its lifecycle found it (ownership.ts).
   *
   * @default false
   */
  readonly adopt?: boolean;
  /**
   * What names the object, as its `ManagedObject` stored it: its target's read says what its destroy does besides
   * removing it, for a kind whose read says (constructs/core/removals.ts).
   *
   * @default - the read is not told of it
   */
  readonly identity?: Readonly<Record<string, unknown>>;
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
    requireHandlerNames(this, props.domain, props.kind);
    const stack = TerraformStack.of(this);
    this.name = claimName(this, props.name ?? addressName(scope));
    const handler = handlerAsset(this, props.domain, props.handlerBundle).path;
    const label = targetLabel({ domain: props.domain, handler, target: props.target, label: props.batchLabel });
    const from = `terraform_data.${this.name}_lifecycle`;
    removedBlocks(stack).push(
      props.forget === true
        ? { from, lifecycle: { destroy: false } }
        : {
            from,
            lifecycle: { destroy: true },
            provisioner: [
              {
                'local-exec': destroyHook(hookHandler(this, props.domain, handler), props.kind, props.target, label, {
                  adopt: props.adopt,
                  stack: stackIdOf(this),
                }),
              },
            ],
          },
    );
    if (props.forget !== true && props.identity !== undefined)
      noteRetired(this, {
        name: this.name,
        kind: props.kind,
        label,
        identity: props.identity,
        adopt: props.adopt === true,
      });
    noteObject(
      this,
      {
        name: this.name,
        kind: props.kind,
        state: props.forget === true ? 'forgotten' : 'declared',
        label,
      },
      { domain: props.domain, bundle: props.handlerBundle, settings: props.target },
    );
  }
}
