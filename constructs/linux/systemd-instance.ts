/**
 * An instance of a template unit (`probe@tty9.service` of `probe@.service`): no file of its own, so
 * it can never shadow its template; applied after the template, and destroyed (stopped and
 * disabled) without touching it.
 */
import type { Construct } from 'constructs';
import { identityOf, type PropsOf } from '../../src/core/fields';
import type { Rule } from '../../src/core/rules';
import {
  INSTANCE_FIELDS,
  INSTANCE_SPEC_FIELDS,
  instanceRules,
  type InstanceSpec,
  instanceSpecOf,
} from '../../src/linux/systemd-instance';
import type { DeclaredUnitSpec } from '../../src/linux/systemd-unit';
import { declareObject } from '../core/declare-object';
import type { ManagedObject } from '../core/managed-object';
import { ObjectConstruct } from '../core/object-construct';
import { builtOr } from '../core/problems';
import type { RetiredObject } from '../core/retired-object';
import { OBJECT_PROPS, TAKE_OVER_PROPS, unresolved, validateProps } from '../core/validate';
import type { SshHost } from './ssh-host';

/**
 * What an instance takes of its template: a `SystemdUnit` named `foo@.service` is one. The
 * instance names it by this shape, not by the class, so the unit's `instance()` and the instance
 * do not import each other.
 */
export interface SystemdTemplate extends ObjectConstruct {
  /** The template's spec: its name, directory and content. */
  readonly spec: DeclaredUnitSpec;
  /** The host the template, and so its instances, live on. */
  readonly host: SshHost;
}

/**
 * The template prop: a unit of the stack (its host carries the target), judged whole by
 * `instanceRules`.
 */
const templateRule: Rule = (value) => {
  const unit = value as Partial<SystemdTemplate> | undefined;
  return typeof unit?.spec?.name === 'string' && typeof unit.host?.target === 'object'
    ? undefined
    : 'a SystemdUnit named foo@.service';
};

/** Every prop, judged at synth by the kind's declaration and rules (src/linux/systemd-instance.ts). */
const PROPS = {
  ...INSTANCE_FIELDS,
  ...OBJECT_PROPS,
  ...TAKE_OVER_PROPS,
  template: { rule: templateRule, required: true },
};

// The instance's own fields come from its declaration (src/linux/systemd-instance.ts), each with its doc comment.
export interface SystemdUnitInstanceProps extends PropsOf<typeof INSTANCE_FIELDS> {
  /** The template unit, a `SystemdUnit` named `foo@.service`. */
  readonly template: SystemdTemplate;
  /** Retire the instance: the next apply stops and disables it and drops it from the state. @default false */
  readonly retired?: boolean;
  /**
   * Stop managing the instance and leave it on the host, running as it is: the next apply drops it from the state only,
   * and deleting the construct afterwards does not delete it either (README, Removing an object).
   *
   * @default false
   */
  readonly forget?: boolean;
  /**
   * Take the instance over when it already exists on the host without this stack's mark of
   * ownership (made by hand, or by an earlier tool): the plan says it will be adopted, the apply
   * marks it as this stack's, and `terraform destroy` then deletes it. Without it, the apply refuses
   * such an instance, naming it (README, Adoption).
   *
   * @default - `true` when the app's context sets `cdktf-homelab:adopt` to true, else false
   */
  readonly adopt?: boolean;
  /**
   * Take the instance over when another stack's mark names it (two stacks declaring one instance): the apply
   * rewrites the mark with this stack's identity, and that stack then reads it as another's and leaves it.
   * `adopt` never does this: without it the plan names both stacks, the apply refuses the instance and
   * `terraform destroy` leaves it (README, Adoption).
   *
   * @default false
   */
  readonly takeOver?: boolean;
}

/** What `SystemdUnit.instance()` takes beyond the instance string. */
export type SystemdUnitInstanceOptions = Omit<SystemdUnitInstanceProps, 'template' | 'instance'>;

/**
 * An instance of a template unit (`probe@tty9.service`): no file of its own, enabled and started
 * by its own props, applied after its template.
 */
export class SystemdUnitInstance extends ObjectConstruct {
  private built?: {
    readonly object: ManagedObject | RetiredObject;
    readonly spec: InstanceSpec;
    readonly retired: boolean;
    readonly template: SystemdTemplate;
  };

  /** The Terraform resources behind it: its managed object, or its retirement. */
  get object(): ManagedObject | RetiredObject {
    return builtOr(this, this.built).object;
  }

  /** The spec the handler gets: the instance's name, its template's and its control props. */
  get spec(): InstanceSpec {
    return builtOr(this, this.built).spec;
  }

  /** Whether it is retired (removed by the next apply). */
  get retired(): boolean {
    return builtOr(this, this.built).retired;
  }

  /** The template it is an instance of. */
  get template(): SystemdTemplate {
    return builtOr(this, this.built).template;
  }

  constructor(scope: Construct, id: string, props: SystemdUnitInstanceProps) {
    super(scope, id);
    const valid = validateProps(this, 'SystemdUnitInstance', PROPS, props, (given) =>
      templateRule(given.template) === undefined && !unresolved(given.instance)
        ? instanceRules(props.template.spec.name, given.instance)
        : [],
    );
    if (!valid) return;
    const { template } = props;
    const spec = instanceSpecOf(props, template.spec);
    const object = declareObject(this, {
      kind: 'systemd-instance',
      targetConstruct: template.host,
      target: { ...template.host.target },
      identity: identityOf(INSTANCE_SPEC_FIELDS, spec),
      unique: { prop: 'instance', value: spec.name, among: 'units' },
      spec: { ...spec },
      retired: props.retired,
      forget: props.forget,
      adopt: props.adopt,
      takeOver: props.takeOver === true,
    });
    this.built = { object, spec, retired: props.retired === true, template };
    // The template's file must exist before the instance starts; destroy goes the other way round.
    this.applyAfter(template);
  }
}
