/**
 * What every object construct is: a construct carrying one managed object (or its retirement),
 * with the ordering API on the construct itself, so an app orders `timer.applyAfter(check)` instead
 * of reaching into `.object` with instanceof checks.
 */
import { Construct } from 'constructs';
import { ManagedObject } from './managed-object';
import { broken } from '../../src/core/rules';
import { builtOr, isRefused, recordProblems } from './problems';
import type { RetiredObject } from './retired-object';

/** The base of every object construct: its managed object and how to order it against another. */
export abstract class ObjectConstruct extends Construct {
  /** What the constructor declared; unset while the construct's props are refused (problems.ts). */
  protected declared?: ManagedObject | RetiredObject;

  /**
   * The Terraform resources behind this object: its managed object, or its retirement. Read on a construct whose
   * props were refused, it throws naming the construct and the app's problems so far.
   */
  get object(): ManagedObject | RetiredObject {
    return builtOr(this, this.declared);
  }

  /**
   * Applies this object after `other` and destroys it before `other`. Each call adds one edge and
   * a repeated call changes nothing. On one target the target's batch apply orders the two; across
   * targets this target's apply runs after the other's (a cycle is refused at synth). An edge to or
   * from a retired object is dropped: its removal runs in the next apply whatever the order, and so is one to
   * or from a construct that built nothing (its problems fail the synth).
   *
   * @returns this construct, so calls chain
   */
  applyAfter(other: ObjectConstruct): this {
    // From JavaScript anything arrives: null threw a TypeError, and a host or a string was dropped in silence,
    // its order with it (an audit, 2026-12-05).
    if (!(other instanceof ObjectConstruct)) {
      recordProblems(this, [broken('applyAfter', 'an object construct (a unit, a metric server, a Repo...)', other)]);
      return this;
    }
    if (isRefused(this) || isRefused(other)) return this;
    if (this.object instanceof ManagedObject && other.object instanceof ManagedObject) {
      this.object.applyAfter(other.object);
    }
    return this;
  }
}
