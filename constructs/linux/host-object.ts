/**
 * What a unit, an instance and a drop-in share as constructs: the props they take besides their kind's own
 * (retiring, forgetting, adopting, taking one over from another stack) and what they are once declared (the
 * object, the spec its handler gets, retired or not). Written once for the three, where each construct wrote
 * them again one noun apart (issue 29), with the rules every object construct's props are judged by.
 */
import { type PropsOf, optional } from '../../src/core/fields';
import { OWNER_FIELDS } from '../../src/core/owner-fields';
import { declareObject, type DeclaredObject } from '../core/declare-object';
import type { ManagedObject } from '../core/managed-object';
import { ObjectConstruct } from '../core/object-construct';
import { builtOr } from '../core/problems';
import type { RetiredObject } from '../core/retired-object';
import type { SshHost } from './ssh-host';

/** The props a unit, an instance and a drop-in take besides their kind's own, each with its rule and doc. */
export const HOST_OBJECT_FIELDS = {
  /**
   * Retire it: the next apply removes it through the same destroy handler `terraform destroy` runs (a unit is
   * stopped, disabled and its file removed; an instance stopped and disabled; a drop-in removed and systemd
   * reloaded) and drops it from the state; after that the construct can be removed. Deleting the construct does
   * the same when the stack's record is kept (README, Removing an object). Needs Terraform 1.9 or newer. A
   * template can be retired only with all its declared instances.
   *
   * Known at synth: a Terraform value is refused, since synth declares the removal instead of the object.
   *
   * @default false
   */
  retired: optional(OWNER_FIELDS.retired),
  /**
   * Stop managing it and leave it on the host as it is (a unit running as it is): the next apply drops it from
   * the state only, and deleting the construct afterwards does not delete it either (README, Removing an object).
   *
   * Known at synth: a Terraform value is refused, since synth drops the object from the state instead of declaring it.
   *
   * @default false
   */
  forget: optional(OWNER_FIELDS.forget),
  /**
   * Take it over when it already exists on the host without this stack's mark of ownership (made by hand, or
   * by an earlier tool): the plan says it will be adopted, the apply marks it as this stack's, and
   * `terraform destroy` then deletes it. Without it, the apply refuses it, naming it (README, Adoption).
   *
   * Known at synth: a Terraform value is refused, since synth decides from it what the apply may take over and what
   * destroy may remove.
   *
   * @default - `true` when the app's context sets `cdktf-homelab:adopt` to true, else false
   */
  adopt: optional(OWNER_FIELDS.adopt),
  /**
   * Take it over when another stack's mark names it (two stacks declaring one unit, instance or drop-in): the
   * apply rewrites the mark with this stack's identity, and that stack then reads it as another's and leaves it.
   * `adopt` never does this: without it the plan names both stacks, the apply refuses it and `terraform destroy`
   * leaves it (README, Adoption).
   *
   * Known at synth: a Terraform value is refused, since synth decides from it whether the apply may take the object
   * from another stack.
   *
   * @default false
   */
  takeOver: optional(OWNER_FIELDS.takeOver),
};

/** A unit, an instance or a drop-in on an `SshHost`, once its constructor has declared it. */
export abstract class HostObjectConstruct<Spec extends Readonly<Record<string, unknown>>> extends ObjectConstruct {
  private made?: {
    readonly object: ManagedObject | RetiredObject;
    readonly spec: () => Spec;
    readonly retired: boolean;
  };

  /** The Terraform resources behind it: its managed object, or its retirement. */
  override get object(): ManagedObject | RetiredObject {
    return builtOr(this, this.made).object;
  }

  /** The spec the handler gets. */
  get spec(): Spec {
    return builtOr(this, this.made).spec();
  }

  /** Whether it is retired (removed by the next apply). */
  get retired(): boolean {
    return builtOr(this, this.made).retired;
  }

  /**
   * Declares the object on `host` with its spec and the props every one of the three takes. A spec given as a
   * function is made at synth: a unit's `enabled` left out depends on drop-ins declared after it.
   */
  protected declareOn(
    host: SshHost,
    object: Pick<DeclaredObject, 'kind' | 'identity' | 'unique'>,
    given: Spec | (() => Spec),
    props: PropsOf<typeof HOST_OBJECT_FIELDS>,
  ): void {
    const spec = typeof given === 'function' ? given : () => given;
    const declared = declareObject(this, {
      ...object,
      targetConstruct: host,
      target: { ...host.target },
      spec: () => ({ ...spec() }),
      retired: props.retired,
      forget: props.forget,
      adopt: props.adopt,
      takeOver: props.takeOver === true,
    });
    this.made = { object: declared, spec, retired: props.retired === true };
  }
}
