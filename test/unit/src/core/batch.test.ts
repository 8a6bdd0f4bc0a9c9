import * as z from 'zod/mini';
import { readBatch, SUMMARY_NAMES } from '../../../../src/core/batch';
import { defineKind, type HandlerDomain, type Reading } from '../../../../src/core/kind';
import { systemClock } from '../../../../src/core/clock';
import { packObjects } from '../../../../src/core/packed-objects';
import { widgetDomain, type WidgetWorld } from './fake-domain';

const context = { env: {}, log: () => undefined, clock: systemClock };
const query = (objects: Record<string, unknown>, target: unknown = { shelf: 'a' }) => ({
  '.target': JSON.stringify(target),
  ...Object.fromEntries(
    Object.entries(objects).map(([name, spec]) => [name, JSON.stringify({ kind: 'widget', spec })]),
  ),
});

describe('readBatch', () => {
  let world: WidgetWorld;
  beforeEach(() => {
    world = {
      live: new Map([
        ['w1', 1],
        ['w2', 2],
      ]),
      calls: [],
    };
  });

  test('reads every object with one connection and one fetch per kind, each under its own name', async () => {
    const result = await readBatch(
      widgetDomain(world),
      query({ one: { id: 'w1', size: 1 }, two: { id: 'w2', size: 5 }, three: { id: 'w3', size: 1 } }),
      context,
    );
    expect(world.calls).toEqual(['connect a', 'fetch w1,w2,w3', 'close']);
    expect(result).toMatchObject({
      'one.in_sync': 'true',
      'one.summary': 'widget w1 is in sync',
      'one.diff': '{}',
      'two.in_sync': 'false',
      'two.diff': '{"size":{"live":2,"want":5}}',
      'three.summary': 'widget w3 is absent',
      '.in_sync': 'false',
    });
    expect(result['.summary']).toBe(
      '2 of 3 objects are not in sync:\n- two: widget w2 differs\n- three: widget w3 is absent',
    );
  });

  test(
    'an object that cannot be read, or whose spec is malformed, is reported as such; the others read ' + 'normally',
    async () => {
      const result = await readBatch(
        widgetDomain(world),
        query({ bad: { id: 'broken', size: 1 }, odd: { id: 'w1' }, fine: { id: 'w1', size: 1 } }),
        context,
      );
      expect(result['bad.in_sync']).toBe('false');
      expect(result['bad.summary']).toBe('cannot be read: Widget unreadable: the shelf is on fire');
      expect(result['odd.summary']).toMatch(/^cannot be read: Bad input: spec\.size: /);
      expect(result['fine.in_sync']).toBe('true');
    },
  );

  test('reads the objects packed under .objects and those under their own names alike', async () => {
    const packed = packObjects({ one: { kind: 'widget', spec: { id: 'w1', size: 1 } } });
    const fields = { ...query({ two: { id: 'w2', size: 5 } }), '.objects': packed };
    const result = await readBatch(widgetDomain(world), fields, context);
    expect(world.calls).toEqual(['connect a', 'fetch w1,w2', 'close']);
    expect(result).toMatchObject({ 'one.in_sync': 'true', 'two.in_sync': 'false', '.in_sync': 'false' });
  });

  test('an object of a kind the bundle does not serve is reported, not fatal', async () => {
    const result = await readBatch(
      widgetDomain(world),
      { ...query({ fine: { id: 'w1', size: 1 } }), odd: '{"kind":"gadget","spec":{}}' },
      context,
    );
    expect(result['odd.summary']).toBe('cannot be read: Unknown kind: gadget is not served by this bundle');
    expect(result['fine.in_sync']).toBe('true');
  });

  test('an unreachable target fails the whole read, naming it', async () => {
    await expect(
      readBatch(widgetDomain(world), query({ one: { id: 'w1', size: 1 } }, { shelf: 'gone' }), context),
    ).rejects.toThrow(/Shelf unreachable: shelf gone did not answer/);
  });

  // Issue 16 item 8: a network stack whose cluster was unreachable planned creates and exited 0.
  test('a target found unreachable while reading one object fails the whole read; the connection closes', async () => {
    await expect(
      readBatch(widgetDomain(world), query({ one: { id: 'w1', size: 1 }, two: { id: 'unreached', size: 1 } }), context),
    ).rejects.toThrow(/^Shelf unreachable: no member of the shelf answered$/);
    expect(world.calls).toEqual(['connect a', 'fetch w1,unreached', 'close']);
  });

  test('a malformed target or query names the field', async () => {
    await expect(readBatch(widgetDomain(world), query({}, { shelf: 7 }), context)).rejects.toThrow(/target\.shelf: /);
    await expect(
      readBatch(widgetDomain(world), { '.target': '{"shelf":"a"}', one: 'not json' }, context),
    ).resolves.toMatchObject({
      'one.summary': expect.stringMatching(/query\["one"\] is not JSON/),
    });
    await expect(readBatch(widgetDomain(world), { '.target': 7 }, context)).rejects.toThrow(/query\.\.target: /);
  });

  test('the batch summary names the first drifted objects and counts the rest', async () => {
    const objects = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`o${i}`, { id: `x${i}`, size: 1 }]));
    const summary = (await readBatch(widgetDomain(world), query(objects), context))['.summary'] ?? '';
    const lines = summary.split('\n');
    expect(lines[0]).toBe('25 of 25 objects are not in sync:');
    expect(lines.slice(1, -1)).toHaveLength(SUMMARY_NAMES);
    expect(lines.at(-1)).toBe("- and 5 more (each object's summary is in the read's result)");
  });

  test('nothing to read needs no connection', async () => {
    const result = await readBatch(widgetDomain(world), query({}), context);
    expect(world.calls).toEqual([]);
    expect(result).toEqual({
      '.in_sync': 'true',
      '.summary': 'all 0 objects are in sync',
      '.drifted': '',
      '.converges': 'true',
    });
  });

  // The drift warning's footer promised convergence under a line saying the apply will refuse its object.
  test('.converges is "false" when some drifted line says the apply will not converge it, else "true"', async () => {
    const fields = query({ off: { id: 'w2', size: 5 }, gone: { id: 'w3', size: 1 } });
    expect((await readBatch(widgetDomain(world), fields, context))['.converges']).toBe('true');
    const owning = { ...world, owned: new Set(['w1']) };
    const result = await readBatch(widgetDomain(owning), fields, context);
    expect(result['off.summary']).toMatch(/not created by this stack: the apply will refuse it/);
    expect(result['.converges']).toBe('false');
  });

  test('.drifted names, in query order, each object not in sync and each following one that is not', async () => {
    const entry = (spec: unknown, follows?: string[]) => JSON.stringify({ kind: 'widget', spec, follows });
    const result = await readBatch(
      widgetDomain(world),
      {
        '.target': JSON.stringify({ shelf: 'a' }),
        fine: entry({ id: 'w1', size: 1 }),
        off: entry({ id: 'w2', size: 5 }),
        after: entry({ id: 'w1', size: 1 }, ['fine', 'off']),
        calm: entry({ id: 'w1', size: 1 }, ['fine']),
        stray: entry({ id: 'w1', size: 1 }, ['nobody']),
      },
      context,
    );
    expect(result['.drifted']).toBe('off,after,stray');
    expect(result['after.in_sync']).toBe('true');
  });
});

describe("each kind's fetch sees the batch's changes", () => {
  // A unit's read depends on the drop-ins the apply writes with it, which are another kind's objects.
  test('every object of every kind the read parsed, as the apply takes it, and no refused spec', async () => {
    const seen: string[] = [];
    const kind = (name: string) =>
      defineKind({
        spec: z.object({ id: z.string() }),
        identity: z.object({ id: z.string() }),
        async fetch(_session: null, specs: ReadonlyArray<{ id: string }>, _context, batch?: readonly string[]) {
          seen.push(`${name} ${specs.map(({ id }) => id).join(',')}: ${(batch ?? []).join(',')}`);
          return null;
        },
        read: (): Reading => ({ inSync: true, summary: 'in sync', diff: {} }),
        apply: async () => undefined,
        change: ({ id }: { id: string }) => `${name}:${id}`,
      });
    const domain = {
      target: z.object({}),
      describe: () => 'here',
      connect: async () => null,
      close: async () => undefined,
      kinds: { unit: async () => kind('unit'), dropIn: async () => kind('dropIn') },
    } satisfies HandlerDomain<null, object, string, string>;
    const entry = (kindName: string, spec: unknown) => JSON.stringify({ kind: kindName, spec });
    const fields = { '.target': '{}', u: entry('unit', { id: 'a' }), d: entry('dropIn', { id: 'b' }) };
    await readBatch(domain, { ...fields, bad: entry('dropIn', { id: 7 }) }, context);
    expect(seen).toEqual(['unit a: unit:a,dropIn:b', 'dropIn b: unit:a,dropIn:b']);
  });
});
