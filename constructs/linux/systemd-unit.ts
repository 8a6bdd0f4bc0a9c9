/**
 * A systemd unit on a host reached over SSH: the file, whether it is enabled, and whether it runs.
 * A template unit (`probe@.service`) is a file only; its instances are declared with `instance()`.
 * Names are checked by systemd's rules at synth; the handler quotes every operand it sends.
 */
import type { Construct } from 'constructs';
import { identityOf, type PropsOf } from '../../src/core/fields';
import type { Problem } from '../../src/core/rules';
import { type DeclaredUnitSpec, UNIT_FIELDS, unitRules, unitSpecOf } from '../../src/linux/systemd-unit';
import { declareObject } from '../core/declare-object';
import type { ManagedObject } from '../core/managed-object';
import { ObjectConstruct } from '../core/object-construct';
import { builtOr, checkAtSynth, isRefused } from '../core/problems';
import type { RetiredObject } from '../core/retired-object';
import { knownText, OBJECT_PROPS, TAKE_OVER_PROPS, targetRule, validateProps } from '../core/validate';
import type { SshHost } from './ssh-host';
import { SystemdUnitInstance, type SystemdUnitInstanceOptions } from './systemd-instance';
import { shippedContent, textValueProblems } from './unit-content';

// The unit's own fields come from its declaration (src/linux/systemd-unit.ts), each with its doc comment.
export interface SystemdUnitProps extends PropsOf<typeof UNIT_FIELDS> {
  /** The host the unit lives on. */
  readonly host: SshHost;
  /**
   * Retire the unit: the next apply stops, disables and removes it (through the same destroy
   * handler `terraform destroy` runs) and drops it from the state; after that the construct can
   * be removed. Deleting the construct does the same when the stack's record is kept (README,
   * Removing an object). Needs Terraform 1.9 or newer. A template can be retired only with all
   * its declared instances.
   *
   * @default false
   */
  readonly retired?: boolean;
  /**
   * Stop managing the unit and leave it on the host, running as it is: the next apply drops it from the state only,
   * and deleting the construct afterwards does not delete it either (README, Removing an object).
   *
   * @default false
   */
  readonly forget?: boolean;
  /**
   * Take the unit over when it already exists on the host without this stack's mark of
   * ownership (made by hand, or by an earlier tool): the plan says it will be adopted, the apply
   * marks it as this stack's, and `terraform destroy` then deletes it. Without it, the apply refuses
   * such a unit, naming it (README, Adoption).
   *
   * @default - `true` when the app's context sets `cdktf-homelab:adopt` to true, else false
   */
  readonly adopt?: boolean;
  /**
   * Take the unit over when another stack's mark names it (two stacks declaring one unit): the apply
   * rewrites the mark with this stack's identity, and that stack then reads it as another's and leaves it.
   * `adopt` never does this: without it the plan names both stacks, the apply refuses the unit and
   * `terraform destroy` leaves it (README, Adoption).
   *
   * @default false
   */
  readonly takeOver?: boolean;
}

/** Where a unit file, and a drop-in's `<unit>.d/`, goes unless `directory` says otherwise. */
export const DEFAULT_UNIT_DIRECTORY = UNIT_FIELDS.directory.default;

/** Every prop, judged at synth by the kind's declaration and rules (src/linux/systemd-unit.ts). */
const PROPS = {
  ...UNIT_FIELDS,
  ...OBJECT_PROPS,
  ...TAKE_OVER_PROPS,
  host: { rule: targetRule('an SshHost'), required: true },
};

/**
 * A systemd unit file on a host, enabled and started (or not) as declared, restarted when its
 * content or `restartOn` changes.
 */
export class SystemdUnit extends ObjectConstruct {
  private built?: {
    readonly object: ManagedObject | RetiredObject;
    readonly host: SshHost;
    readonly spec: DeclaredUnitSpec;
    readonly retired: boolean;
  };

  /** The Terraform resources behind this unit. */
  get object(): ManagedObject | RetiredObject {
    return builtOr(this, this.built).object;
  }

  /** The host the unit is on. */
  get host(): SshHost {
    return builtOr(this, this.built).host;
  }

  /** The spec the handler gets. */
  get spec(): DeclaredUnitSpec {
    return builtOr(this, this.built).spec;
  }

  /** Whether the unit is retired. */
  get retired(): boolean {
    return builtOr(this, this.built).retired;
  }

  constructor(scope: Construct, id: string, props: SystemdUnitProps) {
    super(scope, id);
    const valid = validateProps(this, 'SystemdUnit', PROPS, props, (given) => [
      ...unitRules(given, knownText),
      ...textValueProblems(given.content),
    ]);
    if (!valid) return;
    const spec = unitSpecOf({ ...props, content: shippedContent(props.content) });
    const object = declareObject(this, {
      kind: 'systemd-unit',
      targetConstruct: props.host,
      target: { ...props.host.target },
      identity: identityOf(UNIT_FIELDS, spec),
      // One name in two unit directories is one unit: systemd loads the first it finds.
      unique: { prop: 'name', value: spec.name, among: 'units' },
      spec: { ...spec },
      retired: props.retired,
      forget: props.forget,
      adopt: props.adopt,
      takeOver: props.takeOver === true,
    });
    this.built = { object, host: props.host, spec, retired: props.retired === true };
    checkAtSynth(this, () => this.liveInstancesOfRetiredTemplate());
  }

  /**
   * Declares an instance of this template, e.g. `probe.instance('tty9')` for `probe@tty9.service`.
   * It has no file of its own, is applied after the template, and restarts while it runs when the
   * template's content changes.
   */
  instance(instance: string, options: SystemdUnitInstanceOptions = {}): SystemdUnitInstance {
    return new SystemdUnitInstance(this.node.scope ?? this, `${this.node.id}-${instance}`, {
      ...options,
      template: this,
      instance,
    });
  }

  /** The instances declared from this template, with `instance()` or anywhere in the app. */
  get instances(): SystemdUnitInstance[] {
    return this.node.root.node
      .findAll()
      .filter(
        (child): child is SystemdUnitInstance =>
          child instanceof SystemdUnitInstance && !isRefused(child) && child.template === this,
      );
  }

  /** A retired template would take its file from under instances the stack still declares. */
  private liveInstancesOfRetiredTemplate(): Problem[] {
    const live = this.instances.filter((instance) => !instance.retired).map((instance) => instance.spec.name);
    return this.retired && live.length > 0
      ? [
          {
            prop: 'retired',
            says:
              'must be false while the stack declares instances of the template, ' +
              `got true with ${live.join(', ')}: retire those first or together`,
          },
        ]
      : [];
  }
}
