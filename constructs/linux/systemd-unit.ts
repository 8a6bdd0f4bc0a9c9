/**
 * A systemd unit on a host reached over SSH: the file, whether it is enabled, and whether it runs.
 * Names are checked by systemd's rules at synth; the handler quotes every operand it sends.
 */
import { Construct } from 'constructs';
import { digestOf } from '../../src/core/canonical';
import { renderUnit, type UnitSection } from '../../src/linux/render-unit';
import type { UnitSpec } from '../../src/linux/unit';
import { isTemplate, UNIT_DIRECTORY, unitNameProblem } from '../../src/linux/unit-name';
import { declareObject } from '../core/declare-object';
import type { ManagedObject } from '../core/managed-object';
import type { RetiredObject } from '../core/retired-object';
import { check, checkPattern, unresolved } from '../core/validate';
import type { SshHost } from './ssh-host';

export interface SystemdUnitProps {
  /** The host the unit lives on. */
  readonly host: SshHost;
  /** The unit name, e.g. `node-check.service`, `backup@daily.timer`. Changing it replaces the unit. */
  readonly name: string;
  /** The unit file: its text, or sections rendered with `renderUnit`. */
  readonly content: string | readonly UnitSection[];
  /** Directory of the unit file. Changing it replaces the unit. @default "/etc/systemd/system" */
  readonly directory?: string;
  /** Whether the unit is enabled (its [Install] links exist). Ignored for a unit without [Install]. @default true */
  readonly enabled?: boolean;
  /**
   * Whether the unit runs. A unit declared `false` that a timer starts is left alone while its run
   * is in progress; a crash-looping one is stopped.
   *
   * @default true
   */
  readonly started?: boolean;
  /**
   * Strings whose change restarts the unit while it runs, e.g. digests of the config files it
   * reads. Only their digest is stored.
   *
   * @default - none
   */
  readonly restartOn?: string[];
  /**
   * Retire the unit: the next apply stops, disables and removes it (through the same destroy
   * handler `terraform destroy` runs) and drops it from the state; after that the construct can
   * be removed. Deleting the construct instead would leave the unit on the host. Needs
   * Terraform 1.9 or newer.
   *
   * @default false
   */
  readonly retired?: boolean;
}

export const DEFAULT_UNIT_DIRECTORY = '/etc/systemd/system';

export class SystemdUnit extends Construct {
  /** The Terraform resources behind this unit. */
  readonly object: ManagedObject | RetiredObject;

  constructor(scope: Construct, id: string, props: SystemdUnitProps) {
    super(scope, id);
    const directory = props.directory ?? DEFAULT_UNIT_DIRECTORY;
    if (!unresolved(props.name)) {
      const problem = unitNameProblem(props.name);
      check(this, problem === undefined, 'name', problem ?? '', props.name);
      check(this, !(isTemplate(props.name) && props.started !== false), 'started', 'false for a template unit (start its instances instead)', props.started ?? true);
    }
    checkPattern(this, 'directory', directory, UNIT_DIRECTORY, 'an absolute path of letters, digits and . _ -');
    check(this, !directory.split('/').includes('..'), 'directory', 'a path without ..', directory);
    const content = typeof props.content === 'string' ? props.content : renderUnit(props.content);
    const spec: UnitSpec = {
      name: props.name,
      directory: directory.replace(/\/+$/, ''),
      content,
      enabled: props.enabled ?? true,
      started: props.started ?? true,
      restartOn: digestOf(props.restartOn ?? []),
    };
    this.object = declareObject(this, {
      kind: 'systemd-unit',
      targetConstruct: props.host,
      target: { ...props.host.target },
      identity: { name: spec.name, directory: spec.directory },
      spec: { ...spec },
      retired: props.retired,
    });
  }
}
