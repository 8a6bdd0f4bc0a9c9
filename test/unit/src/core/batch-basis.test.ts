/**
 * What a plan read besides an object that decides its write (Reading.basis, a Repo's clone Secret): the read gives
 * it, for the objects the apply acts on only, in one key (`.basis`), and the batch apply hands each object the basis
 * its plan read (HOMELAB_BASIS), so the kind can refuse a write the plan did not show (clone-secret.ts).
 */
import { readBatch } from '../../../../src/core/batch';
import { applyBatch } from '../../../../src/core/batch-apply';
import { systemClock } from '../../../../src/core/clock';
import { widgetDomain, type WidgetWorld } from './fake-domain';

const entry = (id: string) => JSON.stringify({ kind: 'widget', spec: { id, size: 1 } });
const context = () => ({ env: {}, log: () => undefined, clock: systemClock });

test('the read gives in one key the basis of each object the apply acts on, and of no other', async () => {
  const world: WidgetWorld = {
    live: new Map([['w1', 1]]),
    calls: [],
    basis: new Map([
      ['w1', 'b1'],
      ['w2', 'b2'],
    ]),
  };
  const query = { '.target': '{"shelf":"a"}', kept: entry('w1'), moved: entry('w2'), plain: entry('w3') };
  const result = await readBatch(widgetDomain(world), query, context());
  expect(result['.drifted']).toBe('moved,plain');
  expect(result['.basis']).toBe('{"moved":"b2"}');
  const none = await readBatch(widgetDomain({ live: new Map(), calls: [] }), query, context());
  expect(none['.basis']).toBeUndefined();
});

test('the apply hands each object the basis its plan read, and none to an object whose read gave none', async () => {
  const world: WidgetWorld = { live: new Map(), calls: [], planned: new Map() };
  const env = {
    HOMELAB_TARGET: '{"shelf":"a"}',
    HOMELAB_DRIFTED: 'moved,plain',
    HOMELAB_BASIS: '{"moved":"b2"}',
    HOMELAB_OBJECT_0: entry('w2'),
    HOMELAB_OBJECT_1: entry('w3'),
  };
  await applyBatch(widgetDomain(world), env, context());
  expect(Object.fromEntries(world.planned ?? [])).toEqual({ w2: 'b2', w3: undefined });
  // An apply an earlier version created has no basis in its input: its hook passes "".
  await applyBatch(widgetDomain(world), { ...env, HOMELAB_BASIS: '' }, context());
  expect(Object.fromEntries(world.planned ?? [])).toEqual({ w2: undefined, w3: undefined });
});
