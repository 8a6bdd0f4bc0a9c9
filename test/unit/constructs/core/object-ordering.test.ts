import { Testing, TerraformStack } from 'cdktf';
import type { ManagedObject } from '../../../../constructs/core/managed-object';
import { entryOf, parsedEntry, pendingOf, queryOf } from '../batch-apply';
import { objectIn } from './widget-object';

describe('an object that follows others', () => {
  test('its entry comes after them and reads in sync only when they do, declared before or after it', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const followed: ManagedObject[] = [];
    objectIn(stack, 'step', { follows: () => followed, batchLabel: 'pve' });
    followed.push(objectIn(stack, 'a'), objectIn(stack, 'b'));
    const json = JSON.parse(Testing.synth(stack));
    expect(parsedEntry(json, 'pve', 'step').after).toEqual(['a', 'b']);
    // the read puts it among the drifted when one it follows is (batch.ts): its query entry names them
    expect(JSON.parse(queryOf(json, 'pve').step ?? '').follows).toEqual(['a', 'b']);
    expect(entryOf(json, 'pve', 'step').pending).toBe(pendingOf('pve', 'step'));
    expect(JSON.parse(queryOf(json, 'pve').a ?? '').follows).toBeUndefined();
    expect(entryOf(json, 'pve', 'a')).toEqual({
      text: '{"kind":"widget","spec":{"id":"a","size":3}}',
      pending: pendingOf('pve', 'a'),
    });
  });

  test('following nothing yet leaves no after, so an object followed later changes its entry', () => {
    const synthStep = (followsA: boolean) => {
      const stack = new TerraformStack(Testing.app(), 'test');
      const a = objectIn(stack, 'a', { batchLabel: 'pve' });
      objectIn(stack, 'step', { follows: () => (followsA ? [a] : []) });
      return JSON.parse(Testing.synth(stack));
    };
    expect(entryOf(synthStep(false), 'pve', 'step')).toEqual({
      text: '{"kind":"widget","spec":{"id":"step","size":3}}',
      pending: pendingOf('pve', 'step'),
    });
    expect(entryOf(synthStep(true), 'pve', 'step').text).toBe(
      '{"kind":"widget","spec":{"id":"step","size":3},"after":["a"]}',
    );
  });
});

describe('applyAfter', () => {
  const FAR = { endpoints: ['https://m1:8006'], tokenEnv: 'T' };
  const synthOrdered = (order: (objects: Record<'a' | 'b' | 'c' | 'far', ManagedObject>) => void) => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const objects = {
      a: objectIn(stack, 'a', { batchLabel: 'near' }),
      b: objectIn(stack, 'b'),
      c: objectIn(stack, 'c'),
      far: objectIn(stack, 'far', { target: FAR, batchLabel: 'far' }),
    };
    order(objects);
    return JSON.parse(Testing.synth(stack));
  };

  test("on one target it puts the other's name in after, and the lifecycle depends on the other's", () => {
    const json = synthOrdered(({ a, c }) => c.applyAfter(a));
    const data = json.resource.terraform_data;
    expect(parsedEntry(json, 'near', 'c').after).toEqual(['a']);
    expect(parsedEntry(json, 'near', 'a').after).toBeUndefined();
    expect(data.c_lifecycle.depends_on).toEqual(['terraform_data.a_lifecycle']);
    expect(data.a_lifecycle.depends_on).toBeUndefined();
    expect(data.near_apply.depends_on).toEqual([
      'terraform_data.a_lifecycle',
      'terraform_data.b_lifecycle',
      'terraform_data.c_lifecycle',
    ]);
  });

  test('appends: two calls with two objects keep both edges, and a repeated call adds nothing', () => {
    const json = synthOrdered(({ a, b, c }) => {
      c.applyAfter(a);
      c.applyAfter(b);
      c.applyAfter(a);
    });
    expect(parsedEntry(json, 'near', 'c').after).toEqual(['a', 'b']);
    expect(json.resource.terraform_data.c_lifecycle.depends_on).toEqual([
      'terraform_data.a_lifecycle',
      'terraform_data.b_lifecycle',
    ]);
  });

  test("across targets it makes this target's apply depend on the other's, once, and names nothing in after", () => {
    const json = synthOrdered(({ a, b, far }) => {
      far.applyAfter(a);
      far.applyAfter(b);
      far.applyAfter(a);
    });
    const data = json.resource.terraform_data;
    expect(data.far_apply.depends_on).toEqual(['terraform_data.far_lifecycle', 'terraform_data.near_apply']);
    expect(data.near_apply.depends_on).not.toContain('terraform_data.far_apply');
    expect(parsedEntry(json, 'far', 'far').after).toBeUndefined();
    expect(data.far_lifecycle.depends_on).toEqual(['terraform_data.a_lifecycle', 'terraform_data.b_lifecycle']);
  });

  test('two targets each ordered after the other are refused at synth, naming both orderings', () => {
    // Terraform refuses such a stack with "Error: Cycle: terraform_data.far_apply, terraform_data.near_apply".
    expect(() =>
      synthOrdered(({ a, b, far }) => {
        far.applyAfter(a);
        b.applyAfter(far);
      }),
    ).toThrow(
      new RegExp(
        'applyAfter must not order two targets each after the other, ' +
          'got test/b/Object after test/far/Object, while test/far/Object after test/a/Object',
      ),
    );
  });

  test('following an object of another target is refused at synth: its reading is not in this read', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const far = objectIn(stack, 'far', { target: { endpoints: ['https://m1:8006'], tokenEnv: 'T' } });
    objectIn(stack, 'step', { follows: () => [far] });
    expect(() => Testing.synth(stack)).toThrow(/follows must name objects of the same target, got test\/far\/Object/);
  });

  test('an object it also follows is named once in after', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const a = objectIn(stack, 'a', { batchLabel: 'pve' });
    objectIn(stack, 'step', { follows: () => [a] }).applyAfter(a);
    expect(parsedEntry(JSON.parse(Testing.synth(stack)), 'pve', 'step').after).toEqual(['a']);
  });
});
