import type { StackRecord } from '../../../../src/core/object-record';
import { hasTombstones, prunedStack } from '../../../../src/record/prune';

const stack: StackRecord = {
  objects: {
    kept: { kind: 'metric-server', target: 'pve', state: 'declared' },
    gone: { kind: 'metric-server', target: 'pve', state: 'removed' },
    pending: { kind: 'systemd-unit', target: 'host', state: 'removed' },
    left: { kind: 'metric-server', target: 'old', state: 'forgotten' },
  },
};

test('drops removed and forgotten entries whose lifecycle left the state, keeps the rest', () => {
  const pruned = prunedStack(stack, new Set(['terraform_data.kept_lifecycle', 'terraform_data.pending_lifecycle']));
  expect(pruned.dropped).toEqual(['gone', 'left']);
  expect(pruned.waiting).toEqual(['pending']);
  expect(Object.keys(pruned.record.objects)).toEqual(['kept', 'pending']);
  expect(pruned.record).not.toHaveProperty('targets');
});

test('never drops a declared entry, even when its lifecycle is not in the state yet', () => {
  const pruned = prunedStack(stack, new Set());
  expect(pruned.record.objects.kept).toEqual(stack.objects.kept);
  expect(pruned.dropped).toEqual(['gone', 'left', 'pending']);
});

test('keeps every tombstone whose lifecycle is still in the state: their removal is not applied yet', () => {
  const all = new Set(Object.keys(stack.objects).map((name) => `terraform_data.${name}_lifecycle`));
  const pruned = prunedStack(stack, all);
  expect(pruned.dropped).toEqual([]);
  expect(pruned.record).toEqual(stack);
});

test('a stack has tombstones when some entry is removed or forgotten', () => {
  expect(hasTombstones(stack)).toBe(true);
  expect(hasTombstones({ objects: { kept: stack.objects.kept! }, targets: {} })).toBe(false);
});

test('drops a moved entry once its lifecycle left the state (the move applied), keeps it before', () => {
  const renamed: StackRecord = {
    objects: {
      old: { kind: 'metric-server', target: 'pve', state: 'moved', movedTo: 'new' },
      new: { kind: 'metric-server', target: 'pve', state: 'declared' },
    },
  };
  expect(prunedStack(renamed, new Set(['terraform_data.new_lifecycle'])).dropped).toEqual(['old']);
  const before = prunedStack(renamed, new Set(['terraform_data.old_lifecycle']));
  expect(before.waiting).toEqual(['old']);
  expect(before.record).toEqual(renamed);
});
