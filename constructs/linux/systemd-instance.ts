/**
 * An instance of a template unit (`probe@tty9.service` of `probe@.service`): no file of its own, so
 * it can never shadow its template; applied after the template, and destroyed (stopped and
 * disabled) without touching it.
 */
import { Construct } from 'constructs';
import { digestOf, sha256Hex } from '../../src/core/canonical';
import { contentText } from '../../src/linux/render-unit';
import { type InstanceSpec, START_TIMEOUT_SECONDS } from '../../src/linux/unit';
import { isTemplate, unitNameProblem } from '../../src/linux/unit-name';
import { declareObject } from '../core/declare-object';
import { ManagedObject } from '../core/managed-object';
import type { RetiredObject } from '../core/retired-object';
import { check, unresolved } from '../core/validate';
import { checkStartTimeout } from './unit-rules';
import type { SystemdUnit } from './systemd-unit';

export interface SystemdUnitInstanceProps {
  /** The template unit, a `SystemdUnit` named `foo@.service`. */
  readonly template: SystemdUnit;
  /** The instance string: `tty9` makes `foo@tty9.service`. Changing it replaces the instance. */
  readonly instance: string;
  /** Whether the instance is enabled (the template's [Install] links, made for this instance). @default true */
  readonly enabled?: boolean;
  /** Whether the instance runs. @default true */
  readonly started?: boolean;
  /**
   * Strings whose change restarts the instance while it runs. The template's content is always
   * one of them, so a changed template restarts its running instances.
   *
   * @default - the template's content only
   */
  readonly restartOn?: string[];
  /** Seconds that start, restart and stop may take (see `SystemdUnitProps`). @default 90 */
  readonly startTimeoutSeconds?: number;
  /** Let apply remove a `/dev/null` mask link of the instance. @default false */
  readonly unmask?: boolean;
  /** Retire the instance: the next apply stops and disables it and drops it from the state. @default false */
  readonly retired?: boolean;
}

/** What `SystemdUnit.instance()` takes beyond the instance string. */
export type SystemdUnitInstanceOptions = Omit<SystemdUnitInstanceProps, 'template' | 'instance'>;

export class SystemdUnitInstance extends Construct {
  readonly object: ManagedObject | RetiredObject;
  readonly spec: InstanceSpec;
  readonly retired: boolean;
  /** The template it is an instance of. */
  readonly template: SystemdUnit;

  constructor(scope: Construct, id: string, props: SystemdUnitInstanceProps) {
    super(scope, id);
    const { template } = props;
    this.template = template;
    const [prefix, type] = template.spec.name.split('@.');
    const name = `${prefix}@${props.instance}.${type}`;
    check(
      this,
      unresolved(template.spec.name) || isTemplate(template.spec.name),
      'template',
      'a template unit (foo@.service)',
      template.spec.name,
    );
    if (!unresolved(props.instance)) {
      check(
        this,
        props.instance !== '' && unitNameProblem(name) === undefined,
        'instance',
        'made of letters, digits and : _ . \\ - @',
        props.instance,
      );
    }
    checkStartTimeout(this, props.startTimeoutSeconds);
    this.retired = props.retired ?? false;
    this.spec = {
      name,
      template: template.spec.name,
      directory: template.spec.directory,
      enabled: props.enabled ?? true,
      started: props.started ?? true,
      restartOn: digestOf([...(props.restartOn ?? []), `template ${sha256Hex(contentText(template.spec.content))}`]),
      startTimeoutSeconds: props.startTimeoutSeconds ?? START_TIMEOUT_SECONDS.default,
      unmask: props.unmask ?? false,
    };
    this.object = declareObject(this, {
      kind: 'systemd-instance',
      targetConstruct: template.host,
      target: { ...template.host.target },
      identity: { name, directory: this.spec.directory },
      spec: { ...this.spec },
      retired: props.retired,
    });
    template.instances.push(this);
    // The template's file must exist before the instance starts; destroy goes the other way round.
    if (this.object instanceof ManagedObject && template.object instanceof ManagedObject)
      this.object.applyAfter(template.object);
  }
}
