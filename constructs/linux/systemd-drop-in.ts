/**
 * A drop-in for a unit, `/etc/systemd/system/<unit>.d/<name>.conf`: how a distribution's unit is
 * changed without replacing its file. Apply writes it, reloads, and restarts the unit if it runs.
 */
import type { Construct } from 'constructs';
import { identityOf, type PropsOf } from '../../src/core/fields';
import type { Problem, Rule } from '../../src/core/rules';
import { type DeclaredDropInSpec, DROP_IN_FIELDS, dropInRules, dropInSpecOf } from '../../src/linux/systemd-drop-in';
import { knownText, targetProp, validateProps } from '../core/validate';
import { HOST_OBJECT_FIELDS, HostObjectConstruct } from './host-object';
import { declareDropIn } from './declared-drop-ins';
import { SshHost } from './ssh-host';
import { SystemdUnitInstance } from './systemd-instance';
import { SystemdUnit } from './systemd-unit';
import { shippedContent, textValueProblems } from './unit-content';

/**
 * The unit prop at synth: a unit name, or a SystemdUnit or instance of the stack. The kind's rule takes any object
 * with a spec's name (the handler gets the name alone), so another drop-in passed, and its host was read from nothing.
 */
const unitRule: Rule = (value) =>
  typeof value === 'string' || value instanceof SystemdUnit || value instanceof SystemdUnitInstance
    ? DROP_IN_FIELDS.unit.rule(value)
    : 'a unit name, or a SystemdUnit or instance of the stack';

/** The host a unit construct is on. */
const hostOf = (unit: SystemdUnit | SystemdUnitInstance): SshHost => ('host' in unit ? unit.host : unit.template.host);

/**
 * A `host` beside a unit construct on another host: the drop-in went to a host without that unit (an audit,
 * 2026-12-05), since the host given won.
 */
const otherHost = (unit: unknown, host: unknown): Problem[] => {
  if (!(unit instanceof SystemdUnit || unit instanceof SystemdUnitInstance) || !(host instanceof SshHost)) return [];
  const own = hostOf(unit);
  return own === host
    ? []
    : [{ prop: 'host', says: `must be left unset or be ${own.node.path}, the host of unit ${unit.node.path}` }];
};

/** Every prop, judged at synth by the kind's declaration and rules (src/linux/systemd-drop-in.ts). */
const PROPS = {
  ...DROP_IN_FIELDS,
  ...HOST_OBJECT_FIELDS,
  unit: { ...DROP_IN_FIELDS.unit, rule: unitRule },
  host: targetProp(SshHost, 'an SshHost', false),
};

// The drop-in's own fields come from its declaration (src/linux/systemd-drop-in.ts), each with its doc comment.
export interface SystemdDropInProps extends PropsOf<typeof DROP_IN_FIELDS>, PropsOf<typeof HOST_OBJECT_FIELDS> {
  // The declaration takes any unit of the stack; the construct takes its host from one of these.
  readonly unit: string | SystemdUnit | SystemdUnitInstance;
  /** The host. @default - the host of `unit` when it is a construct; required for a unit name */
  readonly host?: SshHost;
}

/**
 * A drop-in (`<unit>.d/<name>.conf`) for a unit of the stack or one the host already has; a change
 * restarts the unit while it runs.
 */
export class SystemdDropIn extends HostObjectConstruct<DeclaredDropInSpec> {
  constructor(scope: Construct, id: string, props: SystemdDropInProps) {
    super(scope, id);
    const valid = validateProps(this, 'SystemdDropIn', PROPS, props, (given) => [
      ...dropInRules(given, knownText),
      ...textValueProblems(given.content),
      ...otherHost(given.unit, given.host),
    ]);
    if (!valid) return;
    const owner = typeof props.unit === 'string' ? undefined : props.unit;
    // A unit of the stack brings its host; dropInRules refused a unit named by its name without one.
    const host = props.host ?? (owner === undefined ? undefined : hostOf(owner));
    if (host === undefined) return;
    const spec = dropInSpecOf({ ...props, content: shippedContent(props.content) });
    this.declareOn(
      host,
      {
        kind: 'systemd-drop-in',
        identity: identityOf(DROP_IN_FIELDS, spec),
        // Two files of one name for one unit, in any unit directory: systemd reads one of them.
        unique: { prop: 'name', value: `${spec.unit} ${spec.name}`, among: 'drop-ins' },
      },
      spec,
      props,
    );
    if (owner !== undefined) this.applyAfter(owner);
    // Its [Install] counts as its unit's own for enable (unit-enable.ts): the unit's rule reads it at synth.
    if (props.retired !== true) declareDropIn(host, spec.unit, spec.name, spec.content);
  }
}
