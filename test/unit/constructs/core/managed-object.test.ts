import { Testing, TerraformStack } from 'cdktf';
import { ExternalProvider } from '@cdktf/provider-external/lib/provider';
import { Construct } from 'constructs';
import { ManagedObject } from '../../../../constructs/core/managed-object';

const synthObject = () => {
  const stack = new TerraformStack(Testing.app(), 'test');
  const site = new Construct(stack, 'site');
  const owner = new Construct(site, 'thing');
  new ManagedObject(owner, 'Object', {
    domain: 'pve',
    kind: 'widget',
    target: { endpoints: ['https://n1:8006'], tokenEnv: 'T' },
    identity: { id: 'w1' },
    spec: { id: 'w1', size: 3 },
  });
  return JSON.parse(Testing.synth(stack));
};

describe('ManagedObject', () => {
  const synth = synthObject();
  const read = synth.data.external.site_thing_read;
  const lifecycle = synth.resource.terraform_data.site_thing_lifecycle;
  const converge = synth.resource.terraform_data.site_thing_converge;

  test('reads the live object with the kind, target and canonical spec as string query values', () => {
    expect(read.program).toEqual(['node', expect.stringMatching(/^assets\/homelab-handler-pve\/[0-9A-F]+\/pve\.js$/), 'widget', 'read']);
    expect(read.query).toEqual({ kind: 'widget', target: '{"endpoints":["https://n1:8006"],"tokenEnv":"T"}', spec: '{"id":"w1","size":3}' });
    expect(synth.provider.external).toEqual([{}]);
  });

  test('lifecycle holds identity and target, is replaced only by identity, and destroys from self.input', () => {
    expect(lifecycle.input).toEqual({ kind: 'widget', target: read.query.target, identity: '{"id":"w1"}' });
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
      '${data.external.site_thing_read.result["in_sync"] == "true" ? "in-sync" : replace(timestamp(), "/.*/", "in-sync")}',
    );
    expect(converge.triggers_replace.spec).toMatch(/^[0-9a-f]{64}$/);
    const [hook] = converge.provisioner;
    expect(hook['local-exec'].when).toBeUndefined();
    expect(hook['local-exec'].command).toMatch(/widget apply$/);
    expect(hook['local-exec'].environment).toEqual({ HOMELAB_TARGET: '${self.input.target}', HOMELAB_SPEC: '${self.input.spec}' });
  });

  test('a check block turns a drifted read into a plan warning carrying the summary', () => {
    expect(synth.check.site_thing_in_sync).toEqual({
      assert: [
        {
          condition: '${data.external.site_thing_read.result["in_sync"] == "true"}',
          error_message: '${data.external.site_thing_read.result["summary"]} (read at plan time; apply converges it)',
        },
      ],
    });
  });

  test('no resource asks for create_before_destroy, which would skip the destroy hook', () => {
    expect(JSON.stringify(synth)).not.toMatch(/create_before_destroy/);
  });
});

describe('the external provider block', () => {
  const objectIn = (stack: TerraformStack, id: string) =>
    new ManagedObject(new Construct(stack, id), 'Object', { domain: 'pve', kind: 'widget', target: {}, identity: { id }, spec: { id } });

  test('is added once however many objects the stack holds', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    objectIn(stack, 'a');
    objectIn(stack, 'b');
    expect(JSON.parse(Testing.synth(stack)).provider.external).toEqual([{}]);
  });

  test('is not added when the stack already configures one', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    new ExternalProvider(stack, 'mine', { alias: 'mine' });
    objectIn(stack, 'a');
    expect(JSON.parse(Testing.synth(stack)).provider.external).toEqual([{ alias: 'mine' }]);
  });
});

describe('object names', () => {
  test('two objects whose paths give the same Terraform name are refused at synth', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const spec = { domain: 'pve' as const, kind: 'widget', target: {}, identity: {}, spec: {} };
    new ManagedObject(new Construct(new Construct(stack, 'site'), 'influx'), 'Object', spec);
    expect(() => new ManagedObject(new Construct(stack, 'site_influx'), 'Object', spec)).toThrow(
      /test\/site_influx\/Object: name must be unique among the stack's objects, got "site_influx" a second time/,
    );
  });
});
