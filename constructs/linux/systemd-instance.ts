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
  instanceSpecWith,
  templateEntry,
} from '../../src/linux/systemd-instance';
import type { DeclaredUnitSpec } from '../../src/linux/systemd-unit';
import type { InstallDropIn } from '../../src/linux/install-config';
import { enabledProblems } from '../../src/linux/unit-enable';
import { terraformForm } from '../core/encode';
import { ObjectConstruct } from '../core/object-construct';
import { builtOr, checkAtSynth } from '../core/problems';
import { knownText, unresolved, validateProps } from '../core/validate';
import { HOST_OBJECT_FIELDS, HostObjectConstruct } from './host-object';
import { dropInsOf, prefixDropInsOf } from './declared-drop-ins';
import { appended, templateDigest, withRestartOn } from './restart-on';
import { SshHost } from './ssh-host';

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
 * The template prop: a unit of the stack on an SshHost, judged whole by `instanceRules`.
 */
const templateRule: Rule = (value) => {
  const unit = value as Partial<SystemdTemplate> | undefined;
  return typeof unit?.spec?.name === 'string' && unit.host instanceof SshHost
    ? undefined
    : 'a SystemdUnit named foo@.service';
};

/** Every prop, judged at synth by the kind's declaration and rules (src/linux/systemd-instance.ts). */
const PROPS = {
  ...INSTANCE_FIELDS,
  ...HOST_OBJECT_FIELDS,
  template: { rule: templateRule, required: true, atSynth: 'synth declares the instance from its template' },
};

// The instance's own fields come from its declaration (src/linux/systemd-instance.ts), each with its doc comment.
export interface SystemdUnitInstanceProps extends PropsOf<typeof INSTANCE_FIELDS>, PropsOf<typeof HOST_OBJECT_FIELDS> {
  /** The template unit, a `SystemdUnit` named `foo@.service`. */
  readonly template: SystemdTemplate;
}

/**
 * An instance string names the unit, so its rules are judged at synth; a Terraform value there was refused
 * naming the prop `name`, which no app sets (an audit, 2026-12-05).
 */
const PLAIN_INSTANCE = 'must be a plain value known at synth, got a Terraform reference (it names the unit)';

/** What `SystemdUnit.instance()` takes beyond the instance string. */
export type SystemdUnitInstanceOptions = Omit<SystemdUnitInstanceProps, 'template' | 'instance'>;

/**
 * An instance of a template unit (`probe@tty9.service`): no file of its own, enabled and started
 * by its own props, applied after its template.
 */
export class SystemdUnitInstance extends HostObjectConstruct<InstanceSpec> {
  private declaredTemplate?: SystemdTemplate;

  /** The template it is an instance of. */
  get template(): SystemdTemplate {
    return builtOr(this, this.declaredTemplate);
  }

  constructor(scope: Construct, id: string, props: SystemdUnitInstanceProps) {
    super(scope, id);
    const valid = validateProps(this, 'SystemdUnitInstance', PROPS, props, (given) =>
      typeof given.instance === 'string' && unresolved(given.instance)
        ? [{ prop: 'instance', says: PLAIN_INSTANCE }]
        : templateRule(given.template) === undefined
          ? instanceRules(props.template.spec.name, given.instance)
          : [],
    );
    if (!valid) return;
    const { template } = props;
    const restartOn = appended(props.restartOn ?? [], templateEntry(template.spec.content, templateDigest));
    // The drop-ins of it and of its template are declared after it: its `enabled` left out is made at synth.
    const specWith = (dropIns: readonly InstallDropIn[]) =>
      withRestartOn(instanceSpecWith(props, template.spec, restartOn, terraformForm, knownText, dropIns), restartOn);
    const spec = specWith([]);
    const dropIns = () => dropInsOf(template.host, [spec.name, template.spec.name]);
    this.declareOn(
      template.host,
      {
        kind: 'systemd-instance',
        identity: identityOf(INSTANCE_SPEC_FIELDS, spec),
        unique: { prop: 'instance', value: spec.name, among: 'units' },
      },
      () => specWith(dropIns()),
      props,
    );
    this.declaredTemplate = template;
    const prefixDropIns = () => prefixDropInsOf(template.host, [spec.name, template.spec.name]);
    checkAtSynth(this, () =>
      enabledProblems('instance', props.enabled, template.spec.content, knownText, dropIns(), prefixDropIns()),
    );
    // The template's file must exist before the instance starts; destroy goes the other way round.
    this.applyAfter(template);
  }
}
