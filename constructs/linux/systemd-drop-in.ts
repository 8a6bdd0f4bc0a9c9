/**
 * A drop-in for a unit, `/etc/systemd/system/<unit>.d/<name>.conf`: how a distribution's unit is
 * changed without replacing its file. Apply writes it, reloads, and restarts the unit if it runs.
 */
import type { Construct } from 'constructs';
import { identityOf, type PropsOf } from '../../src/core/fields';
import { type DeclaredDropInSpec, DROP_IN_FIELDS, dropInRules, dropInSpecOf } from '../../src/linux/systemd-drop-in';
import { declareObject } from '../core/declare-object';
import type { ManagedObject } from '../core/managed-object';
import { ObjectConstruct } from '../core/object-construct';
import { builtOr } from '../core/problems';
import type { RetiredObject } from '../core/retired-object';
import { knownText, OBJECT_PROPS, TAKE_OVER_PROPS, targetRule, validateProps } from '../core/validate';
import type { SshHost } from './ssh-host';
import type { SystemdUnitInstance } from './systemd-instance';
import type { SystemdUnit } from './systemd-unit';
import { shippedContent, textValueProblems } from './unit-content';

/** Every prop, judged at synth by the kind's declaration and rules (src/linux/systemd-drop-in.ts). */
const PROPS = { ...DROP_IN_FIELDS, ...OBJECT_PROPS, ...TAKE_OVER_PROPS, host: { rule: targetRule('an SshHost') } };

// The drop-in's own fields come from its declaration (src/linux/systemd-drop-in.ts), each with its doc comment.
export interface SystemdDropInProps extends PropsOf<typeof DROP_IN_FIELDS> {
  // The declaration takes any unit of the stack; the construct takes its host from one of these.
  readonly unit: string | SystemdUnit | SystemdUnitInstance;
  /** The host. @default - the host of `unit` when it is a construct; required for a unit name */
  readonly host?: SshHost;
  /** Retire the drop-in: the next apply removes it, reloads and drops it from the state. @default false */
  readonly retired?: boolean;
  /**
   * Stop managing the drop-in and leave it on the host: the next apply drops it from the state only,
   * and deleting the construct afterwards does not delete it either (README, Removing an object).
   *
   * @default false
   */
  readonly forget?: boolean;
  /**
   * Take the drop-in over when it already exists on the host without this stack's mark of
   * ownership (made by hand, or by an earlier tool): the plan says it will be adopted, the apply
   * marks it as this stack's, and `terraform destroy` then deletes it. Without it, the apply refuses
   * such a drop-in, naming it (README, Adoption).
   *
   * @default - `true` when the app's context sets `cdktf-homelab:adopt` to true, else false
   */
  readonly adopt?: boolean;
  /**
   * Take the drop-in over when another stack's mark names it (two stacks declaring one drop-in): the apply
   * rewrites the mark with this stack's identity, and that stack then reads it as another's and leaves it.
   * `adopt` never does this: without it the plan names both stacks, the apply refuses the drop-in and
   * `terraform destroy` leaves it (README, Adoption).
   *
   * @default false
   */
  readonly takeOver?: boolean;
}

/**
 * A drop-in (`<unit>.d/<name>.conf`) for a unit of the stack or one the host already has; a change
 * restarts the unit while it runs.
 */
export class SystemdDropIn extends ObjectConstruct {
  private built?: { readonly object: ManagedObject | RetiredObject; readonly spec: DeclaredDropInSpec };

  /** The Terraform resources behind it: its managed object, or its retirement. */
  get object(): ManagedObject | RetiredObject {
    return builtOr(this, this.built).object;
  }

  /** The spec the handler gets: the unit it changes, its name, directory and content. */
  get spec(): DeclaredDropInSpec {
    return builtOr(this, this.built).spec;
  }

  constructor(scope: Construct, id: string, props: SystemdDropInProps) {
    super(scope, id);
    const valid = validateProps(this, 'SystemdDropIn', PROPS, props, (given) => [
      ...dropInRules(given, knownText),
      ...textValueProblems(given.content),
    ]);
    if (!valid) return;
    const owner = typeof props.unit === 'string' ? undefined : props.unit;
    // A unit of the stack brings its host; dropInRules refused a unit named by its name without one.
    const host = props.host ?? (owner === undefined ? undefined : 'host' in owner ? owner.host : owner.template.host);
    if (host === undefined) return;
    const spec = dropInSpecOf({ ...props, content: shippedContent(props.content) });
    const object = declareObject(this, {
      kind: 'systemd-drop-in',
      targetConstruct: host,
      target: { ...host.target },
      identity: identityOf(DROP_IN_FIELDS, spec),
      // Two files of one name for one unit, in any unit directory: systemd reads one of them.
      unique: { prop: 'name', value: `${spec.unit} ${spec.name}`, among: 'drop-ins' },
      spec: { ...spec },
      retired: props.retired,
      forget: props.forget,
      adopt: props.adopt,
      takeOver: props.takeOver === true,
    });
    this.built = { object, spec };
    if (owner !== undefined) this.applyAfter(owner);
  }
}
