/**
 * Objects a plan read absent, where the stack's state keeps ownership (a target with no place for a mark): the
 * read names them in one key, `.absent`; the apply's recheck fails naming each that exists now; and the batch
 * apply refuses one that appeared after the recheck, naming the lifecycle record to forget. Before, a saved plan
 * applied after another stack made the object wrote over it, and its lifecycle recorded it as this stack's
 * (an audit, 2026-12-05: its destroy then deleted the other stack's metric server).
 */
import { readBatch } from '../../../../src/core/batch';
import { applyBatch } from '../../../../src/core/batch-apply';
import { recheckBatch } from '../../../../src/core/batch-recheck';
import { systemClock } from '../../../../src/core/clock';
import { widgetDomain, type WidgetWorld } from './fake-domain';

const entry = (id: string, adopt = false) =>
  JSON.stringify({ kind: 'widget', spec: { id, size: 1 }, ...(adopt && { adopt }) });

let world: WidgetWorld;
let lines: string[];
const context = () => ({ env: {}, log: (line: string) => lines.push(line), clock: systemClock });
const query = { '.target': '{"shelf":"a"}', mine: entry('w1'), fresh: entry('w8'), later: entry('w9', true) };

beforeEach(() => {
  world = { live: new Map([['w1', 1]]), calls: [], unmarked: true };
  lines = [];
});

test('the read names in one key the objects it read absent whose construct does not adopt', async () => {
  const result = await readBatch(widgetDomain(world), query, context());
  expect(result['.absent']).toBe('fresh');
  expect(Object.keys(result).filter((key) => key.endsWith('.absent'))).toEqual(['.absent']);
  // A kind that keeps ownership on its target (or none) never names one.
  const marked = await readBatch(widgetDomain({ ...world, unmarked: false }), query, context());
  expect(marked['.absent']).toBeUndefined();
});

test('the recheck counts the objects still absent, fails naming each that exists now, reads only those', async () => {
  const recheck = { ...query, '.recheck': 'fresh,later' };
  expect(await recheckBatch(widgetDomain(world), recheck, context())).toEqual({ '.recheck': '2' });
  world.live.set('w8', 5);
  await expect(recheckBatch(widgetDomain(world), recheck, context())).rejects.toThrow(
    "1 of the objects this apply's plan read absent exist now: they appeared after the plan (made by another " +
      'stack or by hand): - fresh: exists on shelf a, though the plan read it absent; nothing on shelf a was ' +
      "applied and no lifecycle records them as this stack's",
  );
  expect(world.calls.filter((call) => call.startsWith('fetch'))).toEqual(['fetch w8,w9', 'fetch w8,w9']);
});

test('the apply refuses an object its plan read absent that exists now, unless adopt, naming its record', async () => {
  world.live.set('w8', 5);
  world.live.set('w9', 5);
  const env = {
    HOMELAB_TARGET: '{"shelf":"a"}',
    HOMELAB_DRIFTED: 'fresh,later,new',
    HOMELAB_ABSENT: 'fresh,new',
    HOMELAB_OBJECT_0: entry('w8'),
    HOMELAB_OBJECT_1: entry('w9', true),
    HOMELAB_OBJECT_2: entry('w7'),
  };
  await expect(applyBatch(widgetDomain(world), env, context())).rejects.toThrow(
    '1 of 3 objects on shelf a were not applied (fresh)',
  );
  expect(lines).toContain(
    'fresh: not applied: exists on shelf a, though the plan read it absent: it appeared after the plan (made by ' +
      'another stack or by hand), and its construct does not say adopt: true: nothing of it was changed; its ' +
      "lifecycle records it as this stack's (PVE keeps no mark): forget that record with terraform state rm " +
      'terraform_data.fresh_lifecycle (nothing is deleted) and plan again, which then names it as not created by ' +
      'this stack',
  );
  expect(Object.fromEntries(world.live)).toEqual({ w1: 1, w7: 1, w8: 5, w9: 1 });
});
