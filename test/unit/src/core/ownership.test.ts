/**
 * Adoption is explicit: the batch read names an object that exists without the stack's mark, saying
 * whether it will be adopted, and the batch apply refuses it, naming it and the prop, unless adopted,
 * while the other objects of the batch converge.
 */
import { readBatch } from '../../../../src/core/batch';
import { applyBatch } from '../../../../src/core/batch-apply';
import { systemClock } from '../../../../src/core/clock';
import { widgetDomain, type WidgetWorld } from './fake-domain';

interface Entry {
  readonly spec: { id: string; size: number };
  readonly adopt?: boolean;
  readonly after?: string[];
  /** Its lifecycle recorded that it existed before the stack declared it. */
  readonly found?: boolean;
}

const entryText = ({ spec, adopt, after, found }: Entry) =>
  JSON.stringify({
    kind: 'widget',
    spec,
    ...(after ? { after } : {}),
    ...(adopt ? { adopt } : {}),
    ...(found ? { found } : {}),
  });

const query = (objects: Record<string, Entry>) => ({
  '.target': '{"shelf":"a"}',
  ...Object.fromEntries(Object.entries(objects).map(([name, entry]) => [name, entryText(entry)])),
});

const hookEnv = (objects: Record<string, Entry>): NodeJS.ProcessEnv => ({
  HOMELAB_TARGET: '{"shelf":"a"}',
  HOMELAB_DRIFTED: Object.keys(objects).join(','),
  ...Object.fromEntries(Object.values(objects).map((entry, index) => [`HOMELAB_OBJECT_${index}`, entryText(entry)])),
});

describe('adoption', () => {
  let world: WidgetWorld;
  let lines: string[];
  const context = () => ({ env: {}, log: (line: string) => lines.push(line), clock: systemClock });
  beforeEach(() => {
    // w1 was made by hand; w2 was created by this stack.
    world = {
      live: new Map([
        ['w1', 1],
        ['w2', 2],
      ]),
      calls: [],
      owned: new Set(['w2']),
    };
    lines = [];
  });

  test('the read says an object it did not create will be adopted, or that the apply will refuse it', async () => {
    const result = await readBatch(
      widgetDomain(world),
      query({
        kept: { spec: { id: 'w1', size: 1 }, adopt: true },
        taken: { spec: { id: 'w1', size: 3 } },
        ours: { spec: { id: 'w2', size: 2 } },
        fresh: { spec: { id: 'w9', size: 1 } },
      }),
      context(),
    );
    expect(result['kept.summary']).toBe('exists on shelf a, not created by this stack: will be adopted');
    expect(result['kept.in_sync']).toBe('false');
    expect(result['taken.summary']).toBe(
      'exists on shelf a, not created by this stack: the apply will refuse it: set adopt: true on its construct ' +
        'to adopt it (destroy then deletes it); widget w1 differs',
    );
    expect(result['taken.diff']).toBe('{"size":{"live":1,"want":3}}');
    expect(result['ours.in_sync']).toBe('true');
    expect(result['fresh.summary']).toBe('widget w9 is absent');
    expect(result['.summary']).toContain('- kept: exists on shelf a, not created by this stack: will be adopted');
  });

  test('the apply refuses an object it did not create, naming it and adopt, and converges the others', async () => {
    const apply = applyBatch(
      widgetDomain(world),
      hookEnv({
        taken: { spec: { id: 'w1', size: 3 } },
        after: { spec: { id: 'w5', size: 1 }, after: ['taken'] },
        fresh: { spec: { id: 'w9', size: 1 } },
      }),
      context(),
    );
    await expect(apply).rejects.toThrow('2 of 3 objects on shelf a were not applied (taken, after)');
    expect(lines).toContain(
      'taken: not applied: exists on shelf a, not created by this stack, and its construct does not say adopt: true: ' +
        'nothing of it was changed; set adopt: true to adopt it (terraform destroy then deletes it), ' +
        'or give the object another name',
    );
    expect(lines).toContain(
      'after: not applied: it comes after taken, which was not applied; nothing of it was changed',
    );
    expect(Object.fromEntries(world.live)).toEqual({ w1: 1, w2: 2, w9: 1 });
    expect([...(world.owned ?? [])].sort()).toEqual(['w2', 'w9']);
  });

  test('with adopt the apply takes the object over, and the next read finds it in sync and ours', async () => {
    await applyBatch(widgetDomain(world), hookEnv({ kept: { spec: { id: 'w1', size: 3 }, adopt: true } }), context());
    expect(world.live.get('w1')).toBe(3);
    const result = await readBatch(widgetDomain(world), query({ kept: { spec: { id: 'w1', size: 3 } } }), context());
    expect(result['kept.summary']).toBe('widget w1 is in sync');
  });

  test('the apply checks ownership with one fetch per kind, and skips an object marked adopt', async () => {
    await applyBatch(widgetDomain(world), hookEnv({ ours: { spec: { id: 'w2', size: 4 } } }), context());
    expect(world.calls).toEqual(['connect a', 'fetch w2', 'close']);
    world.calls.length = 0;
    await applyBatch(widgetDomain(world), hookEnv({ ours: { spec: { id: 'w2', size: 5 }, adopt: true } }), context());
    expect(world.calls).toEqual(['connect a', 'close']);
  });
});

describe('adoption where the target has no place for a mark (the state keeps ownership)', () => {
  let world: WidgetWorld;
  let lines: string[];
  const context = () => ({ env: {}, log: (line: string) => lines.push(line), clock: systemClock });
  beforeEach(() => {
    world = { live: new Map([['w1', 1]]), calls: [], unmarked: true };
    lines = [];
  });

  test('the read gives an object that exists the text its lifecycle records if created now, nothing else', async () => {
    const result = await readBatch(
      widgetDomain(world),
      query({
        taken: { spec: { id: 'w1', size: 1 } },
        kept: { spec: { id: 'w1', size: 1 }, adopt: true },
        fresh: { spec: { id: 'w9', size: 1 } },
      }),
      context(),
    );
    // Each text once, with the names it holds for: not one text per object (issue 30).
    const refused =
      'exists on shelf a, not created by this stack: the apply will refuse it: set adopt: true on its construct ' +
      'to adopt it (destroy then deletes it)';
    expect(JSON.parse(result['.found'] ?? '')).toEqual({
      [refused]: ['taken'],
      'exists on shelf a, not created by this stack: will be adopted': ['kept'],
    });
    expect(Object.keys(result).filter((key) => key.endsWith('.found'))).toEqual(['.found']);
    // The read cannot know whether the stack created it: the summary and verdict stay the kind's own.
    expect(result['taken.in_sync']).toBe('true');
    expect(result['taken.summary']).toBe('widget w1 is in sync');
  });

  test('the apply refuses an object its lifecycle found, naming it and adopt, and changes nothing of it', async () => {
    const apply = applyBatch(
      widgetDomain(world),
      hookEnv({ taken: { spec: { id: 'w1', size: 3 }, found: true }, fresh: { spec: { id: 'w9', size: 1 } } }),
      context(),
    );
    await expect(apply).rejects.toThrow('1 of 2 objects on shelf a were not applied (taken)');
    expect(lines).toContain(
      'taken: not applied: exists on shelf a, not created by this stack, and its construct does not say adopt: true: ' +
        'nothing of it was changed; set adopt: true to adopt it (terraform destroy then deletes it), ' +
        'or give the object another name',
    );
    expect(Object.fromEntries(world.live)).toEqual({ w1: 1, w9: 1 });
  });

  test('with adopt the apply converges an object its lifecycle found', async () => {
    const env = hookEnv({ kept: { spec: { id: 'w1', size: 3 }, found: true, adopt: true } });
    await applyBatch(widgetDomain(world), env, context());
    expect(world.live.get('w1')).toBe(3);
  });
});
