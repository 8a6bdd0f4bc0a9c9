/**
 * A systemd unit on a host reached over SSH: the file, whether it is enabled, and whether it runs.
 * A template unit (`probe@.service`) is a file only; its instances are declared with `instance()`.
 * Names are checked by systemd's rules at synth; the handler quotes every operand it sends.
 */
import type { Construct } from 'constructs';
import { identityOf, type PropsOf } from '../../src/core/fields';
import type { Problem } from '../../src/core/rules';
import { type DeclaredUnitSpec, UNIT_FIELDS, unitRules, unitSpecOf } from '../../src/linux/systemd-unit';
import type { InstallDropIn } from '../../src/linux/install-config';
import { enabledProblems } from '../../src/linux/unit-enable';
import { templateEnabledProblems } from '../../src/linux/template-enable';
import { terraformForm } from '../core/encode';
import { builtOr, checkAtSynth, isRefused, recordProblems } from '../core/problems';
import { knownText, targetProp, validateProps } from '../core/validate';
import { HOST_OBJECT_FIELDS, HostObjectConstruct } from './host-object';
import { withRestartOn } from './restart-on';
import { SshHost } from './ssh-host';
import { SystemdUnitInstance, type SystemdUnitInstanceOptions } from './systemd-instance';
import { dropInsOf, prefixDropInsOf } from './declared-drop-ins';
import { shippedContent, textValueProblems } from './unit-content';

// The unit's own fields come from its declaration (src/linux/systemd-unit.ts), each with its doc comment.
export interface SystemdUnitProps extends PropsOf<typeof UNIT_FIELDS>, PropsOf<typeof HOST_OBJECT_FIELDS> {
  /** The host the unit lives on. */
  readonly host: SshHost;
}

/** Where a unit file, and a drop-in's `<unit>.d/`, goes unless `directory` says otherwise. */
export const DEFAULT_UNIT_DIRECTORY = UNIT_FIELDS.directory.default;

/** Every prop, judged at synth by the kind's declaration and rules (src/linux/systemd-unit.ts). */
const PROPS = {
  ...UNIT_FIELDS,
  ...HOST_OBJECT_FIELDS,
  host: targetProp(SshHost, 'an SshHost'),
};

/**
 * A systemd unit file on a host, enabled and started (or not) as declared, restarted when its
 * content or `restartOn` changes.
 */
export class SystemdUnit extends HostObjectConstruct<DeclaredUnitSpec> {
  private declaredHost?: SshHost;

  /** The host the unit is on. */
  get host(): SshHost {
    return builtOr(this, this.declaredHost);
  }

  constructor(scope: Construct, id: string, props: SystemdUnitProps) {
    super(scope, id);
    const valid = validateProps(this, 'SystemdUnit', PROPS, props, (given) => [
      ...unitRules(given, knownText),
      ...textValueProblems(given.content),
    ]);
    if (!valid) return;
    const shipped = { ...props, content: shippedContent(props.content) };
    // The drop-ins of the unit are declared after it: its `enabled` left out is made at synth, from theirs too.
    const specWith = (dropIns: readonly InstallDropIn[]) =>
      withRestartOn(unitSpecOf(shipped, terraformForm, knownText, dropIns), props.restartOn ?? []);
    const spec = specWith([]);
    const dropIns = () => dropInsOf(props.host, [spec.name]);
    this.declareOn(
      props.host,
      {
        kind: 'systemd-unit',
        identity: identityOf(UNIT_FIELDS, spec),
        // One name in two unit directories is one unit: systemd loads the first it finds.
        unique: { prop: 'name', value: spec.name, among: 'units' },
      },
      () => specWith(dropIns()),
      props,
    );
    this.declaredHost = props.host;
    checkAtSynth(this, () => this.liveInstancesOfRetiredTemplate());
    checkAtSynth(this, () => templateEnabledProblems(spec.name, props.enabled, shipped.content, knownText, dropIns()));
    checkAtSynth(this, () =>
      enabledProblems(
        'unit',
        props.enabled,
        shipped.content,
        knownText,
        dropIns(),
        prefixDropInsOf(props.host, [spec.name]),
      ),
    );
  }

  /**
   * Declares an instance of this template, e.g. `probe.instance('tty9')` for `probe@tty9.service`.
   * It has no file of its own, is applied after the template, and restarts while it runs when the
   * template's content changes.
   */
  instance(instance: string, options: SystemdUnitInstanceOptions = {}): SystemdUnitInstance {
    const scope = this.node.scope ?? this;
    const id = `${this.node.id}-${instance}`;
    // A second call for one instance: a problem of the app's, where cdktf threw its own error at once, naming
    // neither the template nor the instance and hiding every other problem (an audit, 2026-12-05).
    const earlier = scope.node.tryFindChild(id);
    if (earlier instanceof SystemdUnitInstance) {
      recordProblems(this, [
        { prop: 'instance', says: `must be declared once per name, got ${earlier.node.path} twice` },
      ]);
      return earlier;
    }
    return new SystemdUnitInstance(scope, id, {
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
