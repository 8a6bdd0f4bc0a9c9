import * as z from 'zod/mini';
import { applyBatch, inReferenceOrder } from '../../../../src/core/batch-apply';
import { systemClock } from '../../../../src/core/clock';
import { runHandler } from '../../../../src/core/handler-cli';
import { type ApplyItem, defineKind, type HandlerDomain } from '../../../../src/core/kind';
import { widgetDomain, type WidgetWorld } from './fake-domain';

interface Entry {
  readonly name: string;
  readonly spec: unknown;
  readonly after?: string[];
  readonly kind?: string;
}

/** The environment the batch apply resource's hook gives the handler for `drifted`. */
const hookEnv = (drifted: readonly Entry[], shelf = 'a'): NodeJS.ProcessEnv => ({
  HOMELAB_TARGET: JSON.stringify({ shelf }),
  HOMELAB_DRIFTED: drifted.map((entry) => entry.name).join(','),
  ...Object.fromEntries(
    drifted.map(({ kind, spec, after }, index) => [
      `HOMELAB_OBJECT_${index}`,
      JSON.stringify({ kind: kind ?? 'widget', spec, ...(after === undefined ? {} : { after }) }),
    ]),
  ),
});

describe('applyBatch', () => {
  let world: WidgetWorld;
  let lines: string[];
  const context = () => ({ env: {}, log: (line: string) => lines.push(line), clock: systemClock });
  beforeEach(() => {
    world = { live: new Map([['w1', 1]]), calls: [] };
    lines = [];
  });

  test('applies every drifted object over one connection, each log line prefixed by its name', async () => {
    const env = hookEnv([
      { name: 'one', spec: { id: 'w1', size: 5 } },
      { name: 'two', spec: { id: 'w2', size: 2 } },
    ]);
    await applyBatch(widgetDomain(world), env, context());
    expect(world.calls).toEqual(['connect a', 'close']);
    expect(Object.fromEntries(world.live)).toEqual({ w1: 5, w2: 2 });
    expect(lines).toEqual(['one: widget w1: setting size 5', 'two: widget w2: setting size 2']);
  });

  test('applies an object after the objects it names in after, whatever their order in the plan', async () => {
    const env = hookEnv([
      { name: 'vlan', spec: { id: 'v', size: 1 }, after: ['bridge'] },
      { name: 'bridge', spec: { id: 'b', size: 1 }, after: ['bond'] },
      { name: 'bond', spec: { id: 'o', size: 1 } },
    ]);
    await applyBatch(widgetDomain(world), env, context());
    expect(lines.map((line) => line.split(':')[0])).toEqual(['bond', 'bridge', 'vlan']);
  });

  test('connects to nothing when the plan found every object in sync', async () => {
    await applyBatch(widgetDomain(world), hookEnv([]), context());
    expect(world.calls).toEqual([]);
    expect(lines).toEqual(['shelf a: every object is in sync, nothing to apply']);
  });

  test(
    'a failed object is named with its reason, what comes after it is skipped, and the others stay ' + 'applied',
    async () => {
      const env = hookEnv([
        { name: 'fine', spec: { id: 'w3', size: 3 } },
        { name: 'bad', spec: { id: 'w4' } },
        { name: 'odd', kind: 'gadget', spec: {} },
        { name: 'later', spec: { id: 'w5', size: 5 }, after: ['bad'] },
      ]);
      await expect(applyBatch(widgetDomain(world), env, context())).rejects.toThrow(
        /^3 of 4 objects on shelf a were not applied \(bad, odd, later\): the other one was applied and stays so;/,
      );
      expect(world.live.get('w3')).toBe(3);
      expect(world.live.has('w5')).toBe(false);
      expect(lines).toEqual([
        'fine: widget w3: setting size 3',
        'bad: not applied: Bad input: spec.size: Invalid input',
        'odd: not applied: Unknown kind: gadget is not served by this bundle',
        'later: not applied: it comes after bad, which was not applied; nothing of it was changed',
      ]);
    },
  );

  test('fails the run with exit 1 through the CLI, the reasons on stderr', async () => {
    const stderr: string[] = [];
    const env = hookEnv([{ name: 'bad', spec: { id: 'w4' } }]);
    const io = { stdin: async () => '', env, out: () => undefined, log: (line: string) => stderr.push(line) };
    expect(await runHandler(widgetDomain(world), ['batch', 'apply'], io)).toBe(1);
    expect(stderr.at(-1)).toMatch(/^batch apply: 1 of 1 objects on shelf a were not applied \(bad\)/);
  });

  test('an object whose entry is missing from the environment is named, not guessed', async () => {
    const env = { ...hookEnv([{ name: 'one', spec: { id: 'w1', size: 2 } }]), HOMELAB_DRIFTED: 'one,ghost' };
    await expect(applyBatch(widgetDomain(world), env, context())).rejects.toThrow(/\(ghost\)/);
    expect(lines).toContain('ghost: not applied: Missing input: the entry of ghost is empty');
    expect(world.live.get('w1')).toBe(2);
  });
});

// Issue 29: the Linux domain's applyAll got each spec as unknown and parsed it again to tell the kinds apart.
describe('a domain with its own batch apply', () => {
  test("gets each item's change from its kind, over the spec parsed once at the boundary", async () => {
    let parses = 0;
    const counted = z.pipe(
      z.object({ id: z.string() }),
      z.transform((spec) => {
        parses += 1;
        return spec;
      }),
    );
    const kind = defineKind({
      spec: counted,
      identity: z.object({ id: z.string() }),
      fetch: async () => undefined,
      read: () => ({ inSync: true, summary: 'in sync', diff: {} }),
      apply: async () => undefined,
      change: (spec: { id: string }) => `change of ${spec.id}`,
    });
    const seen: Array<string | undefined> = [];
    const domain = {
      target: z.object({ shelf: z.string() }),
      describe: () => 'shelf',
      connect: async () => null,
      close: async () => undefined,
      kinds: { widget: async () => kind },
      applyAll: async (_session: null, items: readonly ApplyItem<null, string>[]) => {
        for (const item of items) seen.push(item.change);
        return new Map(items.map((item) => [item.name, undefined]));
      },
    } satisfies HandlerDomain<null, { shelf: string }, string, string>;
    const env = hookEnv([
      { name: 'one', spec: { id: 'w1' } },
      { name: 'two', spec: { id: 'w2' } },
    ]);
    await applyBatch(domain, env, { env: {}, log: () => undefined, clock: systemClock });
    expect(seen).toEqual(['change of w1', 'change of w2']);
    expect(parses).toBe(2);
  });
});

describe('inReferenceOrder', () => {
  const item = (name: string, after: string[] = []): ApplyItem<unknown> => ({
    name,
    after,
    kind: 'widget',
    concurrency: 1,
    apply: async () => undefined,
  });
  const names = (items: ApplyItem<unknown>[]) => items.map((i) => i.name);

  test.each([
    ['keeps the given order when nothing refers to anything', [item('a'), item('b')], ['a', 'b']],
    ['puts what an item comes after first', [item('drop-in', ['unit']), item('unit')], ['unit', 'drop-in']],
    ['ignores names that are not in the batch (in sync at plan time)', [item('b', ['gone']), item('a')], ['b', 'a']],
    ['keeps a cycle in its given order instead of looping', [item('a', ['b']), item('b', ['a'])], ['b', 'a']],
  ])('%s', (_, items, expected) => {
    expect(names(inReferenceOrder(items))).toEqual(expected);
  });
});
