/**
 * Issue 29 item 1 for the systemd kinds: a unit, a template's instance and a drop-in are each one declaration
 * (the control fields a unit and an instance share declared once), and every form derived from it has every
 * field: API.md's props table, the spec and identity the construct writes, the handler boundary's schemas and
 * discover's rebuild. A field added to a declaration but dropped by one form, or a form that grew a field of
 * its own, fails here by name; a spec or identity path no field declares is refused.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Testing, TerraformStack } from 'cdktf';
import type { ZodMiniType } from 'zod/mini';
import { SshHost } from '../../../../constructs/linux/ssh-host';
import { SystemdDropIn } from '../../../../constructs/linux/systemd-drop-in';
import { SystemdUnit } from '../../../../constructs/linux/systemd-unit';
import { digestOf, sha256Hex } from '../../../../src/core/canonical';
import { type Fields, specOf } from '../../../../src/core/fields';
import { parseAs } from '../../../../src/core/parse';
import { systemdDeclarations } from '../../../../src/discover/systemd';
import { DROP_IN_FIELDS, dropInIdentity, dropInSpec } from '../../../../src/linux/systemd-drop-in';
import {
  INSTANCE_FIELDS,
  INSTANCE_SPEC_FIELDS,
  instanceIdentity,
  instanceSpec,
} from '../../../../src/linux/systemd-instance';
import { UNIT_FIELDS, unitIdentity, unitSpec, unitSpecOf } from '../../../../src/linux/systemd-unit';
import { CONTROL_FIELDS, type LiveUnit } from '../../../../src/linux/unit-control';
import { parsedEntry } from '../../constructs/batch-apply';

const ROOT = join(__dirname, '..', '..', '..', '..');
const KEY = `SHA256:${'A'.repeat(43)}`;
const TEMPLATE = '[Unit]\nDescription=probe %i\n\n[Service]\nExecStart=/bin/sleep infinity\n';
const CONTENT =
  '[Unit]\nDescription=w\n\n[Service]\nExecStart=/bin/sleep infinity\n\n[Install]\nWantedBy=multi-user.target\n';
/** A unit with no [Install] to enable: systemd calls it static, and enabled left out means false (unit-enable.ts). */
const STATIC = '[Unit]\nDescription=s\n\n[Service]\nExecStart=/bin/sleep infinity\n';

/** The props API.md lists for `props`, by name. */
const documentedProps = (props: string): string[] => {
  const api = readFileSync(join(ROOT, 'API.md'), 'utf8');
  const section = api.split(`## ${props}\n`)[1]?.split('\n## ')[0] ?? '';
  return [...section.matchAll(/^\| `(\w+)` \|/gm)].map((match) => match[1] ?? '');
};

/** Props every construct of these kinds adds to its kind's fields. */
const OBJECT = ['retired', 'forget', 'adopt', 'takeOver'];

const specFields = (fields: Fields) => Object.keys(fields).filter((prop) => fields[prop]?.spec !== undefined);
const identityFields = (fields: Fields) => Object.keys(fields).filter((prop) => fields[prop]?.identity === true);

/** One stack with a unit, a template with an instance and a drop-in, every field set off its default. */
const synthesized = () => {
  const stack = new TerraformStack(Testing.app(), 'test');
  const host = new SshHost(stack, 'n2', { host: '10.0.0.2', hostKey: KEY });
  const control = { enabled: false, started: false, restartOn: ['v1'], startTimeoutSeconds: 30, unmask: true };
  const unit = { name: 'w.service', directory: '/run/systemd/system/', content: CONTENT, ...control };
  new SystemdUnit(stack, 'w', { host, ...unit });
  const template = new SystemdUnit(stack, 'probe', { host, name: 'probe@.service', content: TEMPLATE });
  template.instance('tty9', control);
  const dropIn = { unit: 'ssh.service', name: '10-limits', directory: '/run/systemd/system', content: CONTENT };
  new SystemdDropIn(stack, 'limits', { host, ...dropIn, startTimeoutSeconds: 30 });
  const synth = JSON.parse(Testing.synth(stack));
  const identityOf = (id: string): unknown =>
    JSON.parse(synth.resource.terraform_data[`${id}_lifecycle`].input).identity;
  return {
    unit: { spec: parsedEntry(synth, 'n2', 'w').spec, identity: identityOf('w'), control },
    instance: { spec: parsedEntry(synth, 'n2', 'probe-tty9').spec, identity: identityOf('probe-tty9') },
    dropIn: { spec: parsedEntry(synth, 'n2', 'limits').spec, identity: identityOf('limits') },
  };
};

const KINDS: ReadonlyArray<{
  readonly kind: 'unit' | 'instance' | 'dropIn';
  readonly props: string;
  readonly fields: Fields;
  /** The declaration the spec comes from: the kind's own, or an instance's with what its template names. */
  readonly spec: Fields;
  readonly construct: readonly string[];
  readonly schema: ZodMiniType;
  readonly identity: ZodMiniType;
  readonly what: string;
}> = [
  {
    kind: 'unit',
    props: 'SystemdUnitProps',
    fields: UNIT_FIELDS,
    spec: UNIT_FIELDS,
    construct: ['host', ...OBJECT],
    schema: unitSpec,
    identity: unitIdentity,
    what: 'a unit',
  },
  {
    kind: 'instance',
    props: 'SystemdUnitInstanceProps',
    fields: INSTANCE_FIELDS,
    spec: INSTANCE_SPEC_FIELDS,
    construct: ['template', ...OBJECT],
    schema: instanceSpec,
    identity: instanceIdentity,
    what: 'an instance',
  },
  {
    kind: 'dropIn',
    props: 'SystemdDropInProps',
    fields: DROP_IN_FIELDS,
    spec: DROP_IN_FIELDS,
    construct: ['host', ...OBJECT],
    schema: dropInSpec,
    identity: dropInIdentity,
    what: 'a drop-in',
  },
];

describe('the systemd kinds are each one declaration', () => {
  test('a unit and an instance share the control fields, declared once', () => {
    const unit: Fields = UNIT_FIELDS;
    const instance: Fields = INSTANCE_FIELDS;
    for (const [prop, field] of Object.entries(CONTROL_FIELDS)) {
      expect([prop, unit[prop], instance[prop]]).toEqual([prop, field, field]);
      expect(unit[prop]).toBe(instance[prop]);
    }
  });

  test.each(KINDS)("API.md's $props lists every declared field and the construct's own props, no other", (kind) => {
    expect(documentedProps(kind.props).sort()).toEqual([...Object.keys(kind.fields), ...kind.construct].sort());
  });

  test.each(KINDS)('$what: the spec and identity the construct writes carry every field placed there', (kind) => {
    const written = synthesized()[kind.kind];
    expect(Object.keys(written.spec).sort()).toEqual(specFields(kind.spec).sort());
    expect(Object.keys(written.identity as object).sort()).toEqual(identityFields(kind.spec).sort());
  });

  test.each(KINDS)('$what: the boundary takes the spec and identity written, and knows each field', (kind) => {
    const { spec, identity } = synthesized()[kind.kind];
    expect(Object.keys(parseAs(kind.schema, spec, 'spec') as object).sort()).toEqual(specFields(kind.spec).sort());
    expect(parseAs(kind.identity, identity, 'identity')).toEqual(identity);
    // Left out, a field is required, or means its default (a spec written by hand or by an older synth).
    for (const field of specFields(kind.spec)) {
      const { [field]: _, ...without } = spec;
      const declared = kind.spec[field];
      if (declared?.default === undefined) {
        expect(() => parseAs(kind.schema, without, 'spec')).toThrow(`spec.${field}: is required`);
      } else {
        const [, form] = Object.entries(specOf({ [field]: declared }, {}))[0] ?? [];
        expect(parseAs(kind.schema, without, 'spec')).toHaveProperty(field, form);
      }
    }
  });

  test.each(KINDS)('$what: the boundary refuses a spec or identity path no field declares', (kind) => {
    const { spec, identity } = synthesized()[kind.kind];
    expect(() => parseAs(kind.schema, { ...spec, extra: 1 }, 'spec')).toThrow(
      `spec.extra: is not a field of ${kind.what} spec`,
    );
    expect(() => parseAs(kind.identity, { ...(identity as object), extra: 1 }, 'identity')).toThrow(
      `identity.extra: is not a field of ${kind.what} identity`,
    );
  });

  test.each([
    ['probe@.service', false, false, TEMPLATE],
    ['w.service', true, true, CONTENT],
    ['s.service (no [Install])', false, true, STATIC],
  ])(
    'a spec of %s that leaves enabled and started out means its props would: enabled %s, started %s',
    (label, enabled, started, content) => {
      const name = label.split(' ')[0] ?? '';
      const spec = { name, directory: '/etc/systemd/system', content, startTimeoutSeconds: 90 };
      expect(parseAs(unitSpec, spec, 'spec')).toMatchObject({ enabled, started, restartOn: digestOf([]) });
      expect(unitSpecOf({ name, content })).toMatchObject({ enabled, started });
    },
  );

  test('the spec carries restartOn as the digest of the strings, an instance with its template', () => {
    const { unit, instance } = synthesized();
    expect(unit.spec.restartOn).toBe(digestOf(['v1']));
    expect(instance.spec.restartOn).toBe(digestOf(['v1', `template ${sha256Hex(TEMPLATE)}`]));
    expect(unit.spec.directory).toBe('/run/systemd/system');
  });
});

/** What discover reads of a unit, an instance and a drop-in; the rest it leaves at the declaration's defaults. */
const READ = {
  unit: ['name', 'content', 'enabled', 'started'],
  instance: ['instance', 'enabled', 'started'],
  dropIn: ['unit', 'name', 'content'],
};

/** What discover cannot read back, and so leaves at the default a discovered object is judged in sync with. */
const NOT_READ = {
  // A digest of strings only the stack knows; the run settings and an unmask are the stack's, not the host's.
  unit: ['restartOn', 'startTimeoutSeconds', 'unmask', 'directory'],
  instance: ['restartOn', 'startTimeoutSeconds', 'unmask'],
  // Discover lists /etc/systemd/system alone.
  dropIn: ['directory', 'startTimeoutSeconds'],
};

describe("discover's rebuild of the systemd kinds", () => {
  test.each(['unit', 'instance', 'dropIn'] as const)('%s: every declared field is read or said not to be', (kind) => {
    const fields = { unit: UNIT_FIELDS, instance: INSTANCE_FIELDS, dropIn: DROP_IN_FIELDS }[kind];
    expect([...READ[kind], ...NOT_READ[kind]].sort()).toEqual(Object.keys(fields).sort());
  });

  test('a unit, an instance and a drop-in read off their defaults declare every field discover reads', () => {
    const status = (unitFileState: string) => ({
      loadState: 'loaded',
      unitFileState,
      needDaemonReload: false,
      activeState: 'inactive',
      subState: 'dead',
    });
    const live = (unitFileState: string, file?: string): LiveUnit => ({
      status: status(unitFileState),
      fileSha256: file === undefined ? undefined : sha256Hex(file),
      restartOn: undefined,
    });
    const found = {
      units: [
        { name: 'w.service', content: CONTENT },
        { name: 'p@.service', content: TEMPLATE },
      ],
      instances: ['p@a.service'],
      dropIns: [{ unit: 'w.service', name: '10-limits', content: CONTENT }],
      skipped: [],
    };
    const { declarations, skipped } = systemdDeclarations({ host: 'h' }, found, [
      live('disabled', CONTENT),
      live('disabled', TEMPLATE),
      live('disabled'),
      live('disabled', CONTENT),
    ]);
    expect(skipped).toEqual([]);
    const propsOf = (construct: string) =>
      Object.keys(declarations.find((declaration) => declaration.construct === construct)?.props ?? {});
    expect(propsOf('SystemdUnit').sort()).toEqual([...READ.unit, 'host', 'adopt'].sort());
    expect(propsOf('SystemdUnitInstance').sort()).toEqual([...READ.instance, 'template', 'adopt'].sort());
    expect(propsOf('SystemdDropIn').sort()).toEqual([...READ.dropIn, 'adopt'].sort());
  });
});
