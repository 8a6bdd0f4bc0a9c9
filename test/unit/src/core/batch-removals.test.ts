/**
 * A batch read told of the objects its plan removes (`.removing`) says what their destroys do besides, after the
 * drifted objects, and is then not in sync, so the check prints it. Regression: a template drop-in's destroy restarted
 * instances no line of its plan named. A removal that does nothing more leaves the read as it was.
 */
import { readBatch } from '../../../../src/core/batch';
import { removalLines } from '../../../../src/core/batch-removals';
import { systemClock } from '../../../../src/core/clock';
import { widgetDomain, type WidgetWorld } from './fake-domain';

const context = { env: {}, log: () => undefined, clock: systemClock };
const query = (objects: Record<string, unknown>, removing?: Record<string, unknown>) => ({
  '.target': JSON.stringify({ shelf: 'a' }),
  ...(removing === undefined ? {} : { '.removing': JSON.stringify(removing) }),
  ...Object.fromEntries(
    Object.entries(objects).map(([name, spec]) => [name, JSON.stringify({ kind: 'widget', spec })]),
  ),
});
const gone = (id: unknown) => ({ kind: 'widget', identity: { id } });

let world: WidgetWorld;
beforeEach(() => {
  world = { live: new Map([['w1', 1]]), calls: [], removalWords: new Map([['w9', 'its destroy restarts w10']]) };
});

test('a removal whose destroy does more is named after the drifted objects, in one connection', async () => {
  const result = await readBatch(
    widgetDomain(world),
    query({ one: { id: 'w1', size: 2 } }, { old: gone('w9'), quiet: gone('w8') }),
    context,
  );
  expect(result['.summary']).toBe(
    '1 of 1 objects are not in sync:\n- one: widget w1 differs\n' +
      'the removal of 1 object does more than its "will be destroyed" says:\n- old: its destroy restarts w10',
  );
  expect(world.calls).toEqual(['connect a', 'fetch w1', 'removals w9,w8', 'close']);
  // The apply acts on the drifted objects alone: a removal is its destroy hook's.
  expect(result['.drifted']).toBe('one');
});

test('a read whose objects are in sync says only the removals, and is not in sync', async () => {
  const result = await readBatch(
    widgetDomain(world),
    query({ one: { id: 'w1', size: 1 } }, { old: gone('w9') }),
    context,
  );
  expect(result).toMatchObject({ '.in_sync': 'false', '.drifted': '', '.converges': 'true', 'one.in_sync': 'true' });
  expect(result['.summary']).toBe(
    'the removal of 1 object does more than its "will be destroyed" says:\n- old: its destroy restarts w10',
  );
});

test('a removal that does nothing more, or none at all, leaves the read in sync', async () => {
  for (const removing of [undefined, { quiet: gone('w8') }]) {
    const result = await readBatch(widgetDomain(world), query({ one: { id: 'w1', size: 1 } }, removing), context);
    expect(result).toMatchObject({ '.in_sync': 'true', '.summary': 'all 1 objects are in sync' });
  }
});

test('a kind that says nothing of its removals is not asked, nor one the bundle does not serve', async () => {
  const quiet: WidgetWorld = { live: new Map([['w1', 1]]), calls: [] };
  const removing = { old: gone('w9'), other: { kind: 'gadget', identity: { id: 'g' } } };
  const result = await readBatch(widgetDomain(quiet), query({ one: { id: 'w1', size: 1 } }, removing), context);
  expect(result['.in_sync']).toBe('true');
  expect(quiet.calls).toEqual(['connect a', 'fetch w1', 'close']);
});

test('an identity its kind refuses is said so: the plan cannot tell what its destroy does', async () => {
  const result = await readBatch(widgetDomain(world), query({}, { odd: gone(7) }), context);
  expect(result['.in_sync']).toBe('false');
  expect(result['.summary']).toMatch(/^the removal of 1 object .*\n- odd: cannot be read: Bad input: odd\.id: /);
});

test('the lines are printable and counted', () => {
  const words = new Map([
    ['b', 'two\nlines'],
    ['a', 'one'],
  ]);
  expect(removalLines(words)).toEqual([
    'the removals of 2 objects do more than their "will be destroyed" says:',
    '- a: one',
    '- b: two lines',
  ]);
  expect(removalLines(new Map())).toEqual([]);
});
