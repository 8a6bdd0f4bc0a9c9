import { Testing, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { ManagedObject } from '../../../../constructs/core/managed-object';
import { TerraformProvider } from '../../../../constructs/core/cdk';

const TARGET = { endpoints: ['https://n1:8006'], tokenEnv: 'T' };

const objectIn = (scope: Construct, id: string, over: Partial<ConstructorParameters<typeof ManagedObject>[2]> = {}) =>
  new ManagedObject(new Construct(scope, id), 'Object', {
    domain: 'pve',
    kind: 'widget',
    target: TARGET,
    identity: { id },
    spec: { id, size: 3 },
    ...over,
  });

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
  const converge = synth.resource.terraform_data.site_thing_converge;

  test('objects on one target share one read, whose query holds the target and each object under its name', () => {
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
    expect(read.query).toEqual({
      '.target': '{"endpoints":["https://n1:8006"],"tokenEnv":"T"}',
      site_thing: '{"kind":"widget","spec":{"id":"thing","size":3}}',
      site_other: '{"kind":"widget","spec":{"id":"other","size":3}}',
    });
    expect(synth.provider.external).toEqual([{}]);
    expect(synth.terraform.required_providers.external).toEqual({ source: 'hashicorp/external', version: '2.3.5' });
  });

  test('lifecycle holds identity and target, is replaced only by identity, and destroys from self.input', () => {
    expect(lifecycle.input).toEqual({ kind: 'widget', target: read.query['.target'], identity: '{"id":"thing"}' });
    expect(Object.keys(lifecycle.triggers_replace)).toEqual(['identity']);
    expect(lifecycle.provisioner).toEqual([
      {
        'local-exec': {
          when: 'destroy',
          command: expect.stringMatching(/^node ".*pve\.js" widget destroy$/),
          environment: { HOMELAB_TARGET: '${self.input.target}', HOMELAB_IDENTITY: '${self.input.identity}' },
        },
      },
    ]);
    expect(lifecycle.lifecycle).toBeUndefined();
  });

  test('converge applies at create, after lifecycle, and is replaced by drift through timestamp()', () => {
    expect(converge.depends_on).toEqual(['terraform_data.site_thing_lifecycle']);
    expect(converge.triggers_replace.sync).toBe(
      '${data.external.pve_read.result["site_thing.in_sync"] == "true" ? "in-sync" : replace(timestamp(), ' +
        '"/.*/", "in-sync")}',
    );
    expect(converge.triggers_replace.spec).toMatch(/^[0-9a-f]{64}$/);
    const [hook] = converge.provisioner;
    expect(hook['local-exec'].when).toBeUndefined();
    expect(hook['local-exec'].command).toMatch(/widget apply$/);
    expect(hook['local-exec'].environment).toEqual({
      HOMELAB_TARGET: '${self.input.target}',
      HOMELAB_SPEC: '${self.input.spec}',
    });
  });

  test('one check per batch turns drift into one plan warning carrying the batch summary', () => {
    expect(Object.keys(synth.check).sort()).toEqual([
      expect.stringMatching(/^pve_[0-9a-f]{8}_in_sync$/),
      'pve_in_sync',
    ]);
    expect(synth.check.pve_in_sync).toEqual({
      assert: [
        {
          condition: '${data.external.pve_read.result[".in_sync"] == "true"}',
          error_message: '${data.external.pve_read.result[".summary"]}\n(read at plan time; apply converges it)',
        },
      ],
    });
  });

  test('no resource asks for create_before_destroy, which would skip the destroy hook', () => {
    expect(JSON.stringify(synth)).not.toMatch(/create_before_destroy/);
  });

  test('an object without a destroy action has no destroy hook', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    objectIn(stack, 'step', { destroyable: false });
    const json = JSON.parse(Testing.synth(stack));
    expect(json.resource.terraform_data.step_lifecycle.provisioner).toBeUndefined();
    expect(json.resource.terraform_data.step_converge.provisioner).toHaveLength(1);
  });
});

describe('an object that follows others', () => {
  test('its converge references theirs, declared before or after it, and nothing else changes', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const followed: ManagedObject[] = [];
    objectIn(stack, 'step', { follows: () => followed });
    followed.push(objectIn(stack, 'a'), objectIn(stack, 'b'));
    const json = JSON.parse(Testing.synth(stack));
    const step = json.resource.terraform_data.step_converge;
    expect(step.triggers_replace.follows).toEqual([
      '${terraform_data.a_converge.id}',
      '${terraform_data.b_converge.id}',
    ]);
    expect(Object.keys(step.triggers_replace).sort()).toEqual(['follows', 'spec', 'sync']);
    expect(Object.keys(json.resource.terraform_data.a_converge.triggers_replace).sort()).toEqual(['spec', 'sync']);
  });

  test('following nothing yet leaves an empty list, so adding an object later replaces the converge', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    objectIn(stack, 'step', { follows: () => [] });
    const json = JSON.parse(Testing.synth(stack));
    expect(json.resource.terraform_data.step_converge.triggers_replace.follows).toEqual([]);
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
    expect(() => objectIn(stack, 'site_influx')).toThrow(
      /test\/site_influx\/Object: name must be unique among the stack's objects, got "site_influx" a second time/,
    );
  });

  test('a name that is not a Terraform identifier is refused, since it keys the batch result', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    expect(() => objectIn(stack, 'x', { name: '.in_sync' })).toThrow(/name must be a Terraform identifier/);
  });
});
