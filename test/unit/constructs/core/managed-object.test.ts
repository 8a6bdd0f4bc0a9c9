import { Testing, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { TerraformProvider } from '../../../../constructs/core/cdk';
import { digestOf } from '../../../../src/core/canonical';
import { entryNames, entryOf, parsedEntry, queryOf } from '../batch-apply';
import { objectIn } from './widget-object';

const TARGET_TEXT = '{"endpoints":["https://n1:8006"],"tokenEnv":"T"}';

const synthObjects = () => {
  const stack = new TerraformStack(Testing.app(), 'test');
  const site = new Construct(stack, 'site');
  objectIn(site, 'thing', { batchLabel: 'pve' });
  objectIn(site, 'other');
  objectIn(site, 'elsewhere', { target: { endpoints: ['https://n9:8006'], tokenEnv: 'T' } });
  return JSON.parse(Testing.synth(stack));
};

describe('ManagedObject', () => {
  const synth = synthObjects();
  const read = synth.data.external.pve_read;
  const lifecycle = synth.resource.terraform_data.site_thing_lifecycle;
  const apply = synth.resource.terraform_data.pve_apply;

  test('objects on one target share one read, whose query holds the target and each object by its name', () => {
    expect(Object.keys(synth.data.external).sort()).toEqual([
      expect.stringMatching(/^pve_[0-9a-f]{8}_read$/),
      'pve_read',
    ]);
    expect(read.program).toEqual([
      'node',
      expect.stringMatching(/^assets\/homelab-handler-pve\/[0-9A-F]+\/pve\.js$/),
      'batch',
      'read',
    ]);
    // Specs known at synth are packed into one field: the query sits in the state Terraform rewrites per resource.
    expect(Object.keys(read.query).sort()).toEqual(['.objects', '.stack', '.target']);
    expect(queryOf(synth, 'pve')).toEqual({
      '.target': TARGET_TEXT,
      // The stack's identity, whose marks are its own (stack-id.ts): the TerraformStack's id by default.
      '.stack': 'test',
      site_thing: '{"kind":"widget","spec":{"id":"thing","size":3}}',
      site_other: '{"kind":"widget","spec":{"id":"other","size":3}}',
    });
    expect(synth.provider.external).toEqual([{}]);
    expect(synth.terraform.required_providers.external).toEqual({ source: 'hashicorp/external', version: '2.3.5' });
  });

  test("lifecycle stores the identity and the target's label, is replaced only by identity, destroys from both", () => {
    expect(lifecycle.input).toBe('{"identity":{"id":"thing"},"target":"pve"}');
    // The digest form every earlier version stored: another would replace every lifecycle on upgrade.
    expect(lifecycle.triggers_replace).toEqual({ identity: digestOf({ id: 'thing' }) });
    expect(lifecycle.provisioner).toEqual([
      {
        'local-exec': {
          when: 'destroy',
          interpreter: [
            'sh',
            expect.stringMatching(/^assets\/homelab-destroy-hook\/[0-9A-F]+\/destroy-hook\.sh$/),
            expect.stringMatching(/^assets\/.*pve\.js$/),
            'pve',
          ],
          command: 'destroy',
          environment: {
            HOMELAB_KIND: 'widget',
            HOMELAB_STACK: 'test',
            HOMELAB_LIFECYCLE: '${jsonencode(self.input)}',
            HOMELAB_TARGET: TARGET_TEXT,
            HOMELAB_TARGET_LABEL: 'pve',
          },
        },
      },
    ]);
    expect(lifecycle.lifecycle).toBeUndefined();
  });

  test("an object without batchLabel stores its target's default label, <domain>_<digest>, its batch's name", () => {
    const elsewhere = synth.resource.terraform_data.site_elsewhere_lifecycle;
    const label = Object.keys(synth.data.external).find((key) => key !== 'pve_read');
    expect(JSON.parse(elsewhere.input).target).toBe(label?.replace(/_read$/, ''));
    expect(elsewhere.provisioner[0]['local-exec'].environment.HOMELAB_TARGET_LABEL).toBe(
      JSON.parse(elsewhere.input).target,
    );
  });

  test('an object has no resource of its own but its lifecycle; each target has one apply resource', () => {
    const names = Object.keys(synth.resource.terraform_data).map((key) => key.replace(/^pve_[0-9a-f]{8}_/, 'pve_*_'));
    expect(names.sort()).toEqual([
      'pve_*_apply',
      'pve_apply',
      'site_elsewhere_lifecycle',
      'site_other_lifecycle',
      'site_thing_lifecycle',
    ]);
  });

  test('two objects on one target share its apply, one trigger entry each; an object elsewhere is in its own', () => {
    expect(entryNames(synth, 'pve').sort()).toEqual(['site_other', 'site_thing']);
    const elsewhere = Object.keys(synth.resource.terraform_data).find((key) => /^pve_[0-9a-f]{8}_apply$/.test(key));
    expect(entryNames(synth, (elsewhere ?? '').replace(/_apply$/, ''))).toEqual(['site_elsewhere']);
  });

  test("an entry is the object's kind and spec, made unknown at plan time through timestamp() when it drifted", () => {
    // The closed entries merged with the pending ones, each with its pending value (entryOf checks its form).
    expect(entryOf(synth, 'pve', 'site_thing')).toEqual({
      text: '{"kind":"widget","spec":{"id":"thing","size":3}}',
      pending: 'local.pve_pending["site_thing"]',
    });
    expect(apply.triggers_replace).toBe(
      '${merge(local.pve_entries, { for name, at in local.pve_pending : name => "${local.pve_entries[name]}${at}" })}',
    );
    expect(synth.locals.pve_pending).toBe(
      '${{ for name in local.pve_drifted : name => replace(timestamp(), "/.*/", "") }}',
    );
  });

  test('the apply holds the target, the drifted names and what the plan read besides them, ignoring changes', () => {
    expect(apply.input).toEqual({
      target: read.query['.target'],
      drifted: '${join(",", local.pve_drifted)}',
      basis: '${lookup(data.external.pve_read.result, ".basis", "")}',
    });
    // one key of the read; a read without it names every object, so it never plans in sync (issue 30)
    expect(synth.locals.pve_drifted).toBe(
      '${compact(split(",", lookup(data.external.pve_read.result, ".drifted", "site_thing,site_other")))}',
    );
    expect(apply.lifecycle).toEqual({ ignore_changes: ['input'] });
    expect(apply.depends_on).toEqual(['terraform_data.site_thing_lifecycle', 'terraform_data.site_other_lifecycle']);
  });

  test("the apply's create hook runs batch apply once, with each drifted entry numbered in its environment", () => {
    // A shell drops variables whose names hold a '-', which an object's name may: they are numbered.
    expect(apply.provisioner).toEqual([
      {
        'local-exec': {
          command: `node "${read.program[1]}" batch apply`,
          environment:
            '${merge({ HOMELAB_TARGET = self.input.target, HOMELAB_DRIFTED = self.input.drifted, ' +
            'HOMELAB_ABSENT = lookup(self.input, "absent", ""), HOMELAB_BASIS = lookup(self.input, "basis", ""), ' +
            'HOMELAB_STACK = "test" }, ' +
            '{ for index, name in split(",", self.input.drifted) : format("HOMELAB_OBJECT_%d", index) => ' +
            'self.triggers_replace[name] if name != "" })}',
        },
      },
    ]);
  });

  test('one check per batch turns drift into one plan warning carrying the batch summary and a footer', () => {
    expect(Object.keys(synth.check).sort()).toEqual([
      expect.stringMatching(/^pve_[0-9a-f]{8}_in_sync$/),
      'pve_in_sync',
    ]);
    expect(synth.check.pve_in_sync).toEqual({
      assert: [
        {
          condition: '${data.external.pve_read.result[".in_sync"] == "true"}',
          // The footer promises convergence only when the read says no line claims otherwise: one lookup.
          error_message:
            '${data.external.pve_read.result[".summary"]}\n' +
            '${lookup(data.external.pve_read.result, ".converges", "false") == "true" ? ' +
            '"(read at plan time; apply converges it)" : ' +
            '"(read at plan time; apply converges it unless its line says otherwise)"}',
        },
      ],
    });
  });

  test('no resource asks for create_before_destroy, which would skip the destroy hook', () => {
    expect(JSON.stringify(synth)).not.toMatch(/create_before_destroy/);
  });

  test('an object without a destroy action has no destroy hook and is still applied by its batch', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    objectIn(stack, 'step', { destroyable: false, batchLabel: 'pve' });
    const json = JSON.parse(Testing.synth(stack));
    expect(json.resource.terraform_data.step_lifecycle.provisioner).toBeUndefined();
    expect(parsedEntry(json, 'pve', 'step')).toEqual({ kind: 'widget', spec: { id: 'step', size: 3 } });
  });

  test('resendOn adds <name>_resend, replaced by that value, which applies this one object after the batch', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    objectIn(stack, 'token', { resendOn: 4, batchLabel: 'pve' });
    objectIn(stack, 'plain');
    const data = JSON.parse(Testing.synth(stack)).resource.terraform_data;
    expect(data.token_resend).toEqual({
      depends_on: ['terraform_data.pve_apply'],
      input: { target: TARGET_TEXT, spec: '{"id":"token","size":3}' },
      triggers_replace: { resendOn: 4 },
      provisioner: [
        {
          'local-exec': {
            command: expect.stringMatching(/^node ".*pve\.js" "\$HOMELAB_KIND" apply$/),
            environment: {
              HOMELAB_KIND: 'widget',
              HOMELAB_STACK: 'test',
              HOMELAB_TARGET: '${self.input.target}',
              HOMELAB_SPEC: '${self.input.spec}',
            },
          },
        },
      ],
    });
    expect(data.plain_resend).toBeUndefined();
  });
});

describe('the external provider block', () => {
  test('is added once however many objects and targets the stack holds', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    objectIn(stack, 'a');
    objectIn(stack, 'b', { target: { other: true } });
    expect(JSON.parse(Testing.synth(stack)).provider.external).toEqual([{}]);
  });

  test('is not added when the stack already configures one', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    class Mine extends TerraformProvider {
      constructor(scope: Construct) {
        super(scope, 'mine', { terraformResourceType: 'external', terraformProviderSource: 'hashicorp/external' });
      }
      protected synthesizeAttributes() {
        return { alias: 'mine' };
      }
    }
    new Mine(stack);
    objectIn(stack, 'a');
    expect(JSON.parse(Testing.synth(stack)).provider.external).toEqual([{ alias: 'mine' }]);
  });
});

describe('object names', () => {
  test('two objects whose paths give the same Terraform name are refused at synth', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    objectIn(new Construct(stack, 'site'), 'influx');
    objectIn(stack, 'site_influx');
    expect(() => Testing.synth(stack)).toThrow(
      /^test\/site_influx\/Object: name must be unique among the stack's objects, got "site_influx" a second time/,
    );
  });

  test('a name that is not a Terraform identifier is refused, since it keys the batch result', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    objectIn(stack, 'x', { name: '.in_sync' });
    expect(() => Testing.synth(stack)).toThrow(
      'test/x/Object: name must be a Terraform identifier (a letter or _, then letters, digits, _ or -), ' +
        'got ".in_sync"',
    );
  });

  test('the name __proto__ is refused, since the record, keyed by name, would drop it', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    objectIn(stack, 'x', { name: '__proto__' });
    expect(() => Testing.synth(stack)).toThrow('test/x/Object: name must be anything but __proto__, got "__proto__"');
  });
});
