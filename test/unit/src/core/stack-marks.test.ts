/**
 * Ownership names the stack (issue 27 item 3): an object whose mark names another stack reads as that
 * stack's, naming both, and the apply refuses it even with `adopt: true`, unless `takeOver: true`; a mark
 * naming no stack (an earlier version's) and a run that knows no stack count as this stack's, as before.
 */
import { readBatch } from '../../../../src/core/batch';
import { applyBatch } from '../../../../src/core/batch-apply';
import { systemClock } from '../../../../src/core/clock';
import { runHandler } from '../../../../src/core/handler-cli';
import { isOtherStack, receivedStackId } from '../../../../src/core/stack-id';
import { widgetDomain, type WidgetWorld } from './fake-domain';

interface Entry {
  readonly spec: { id: string; size: number };
  readonly adopt?: boolean;
  readonly takeOver?: boolean;
}

const entryText = ({ spec, adopt, takeOver }: Entry) =>
  JSON.stringify({ kind: 'widget', spec, ...(adopt ? { adopt } : {}), ...(takeOver ? { takeOver } : {}) });

const query = (stack: string | undefined, objects: Record<string, Entry>) => ({
  '.target': '{"shelf":"a"}',
  ...(stack === undefined ? {} : { '.stack': stack }),
  ...Object.fromEntries(Object.entries(objects).map(([name, entry]) => [name, entryText(entry)])),
});

const hookEnv = (stack: string, objects: Record<string, Entry>): NodeJS.ProcessEnv => ({
  HOMELAB_TARGET: '{"shelf":"a"}',
  HOMELAB_STACK: stack,
  HOMELAB_DRIFTED: Object.keys(objects).join(','),
  ...Object.fromEntries(Object.values(objects).map((entry, index) => [`HOMELAB_OBJECT_${index}`, entryText(entry)])),
});

describe('marks that name a stack', () => {
  let world: WidgetWorld;
  let lines: string[];
  const context = (stack?: string) => ({
    env: {},
    log: (line: string) => lines.push(line),
    clock: systemClock,
    ...(stack === undefined ? {} : { stack }),
  });
  beforeEach(() => {
    // w1 is stack "blue"'s, w2 "green"'s, w3 carries an earlier version's mark naming no stack.
    world = {
      live: new Map([
        ['w1', 1],
        ['w2', 2],
        ['w3', 3],
      ]),
      calls: [],
      owned: new Set(['w1', 'w2', 'w3']),
      marks: new Map([
        ['w1', 'blue'],
        ['w2', 'green'],
      ]),
    };
    lines = [];
  });

  test('the read names both stacks for an object another stack marked, adopt or not', async () => {
    const result = await readBatch(
      widgetDomain(world),
      query('blue', {
        mine: { spec: { id: 'w1', size: 1 } },
        theirs: { spec: { id: 'w2', size: 2 }, adopt: true },
        taken: { spec: { id: 'w2', size: 2 }, takeOver: true },
        older: { spec: { id: 'w3', size: 3 } },
      }),
      context(),
    );
    expect(result['mine.in_sync']).toBe('true');
    expect(result['older.in_sync']).toBe('true');
    expect(result['theirs.in_sync']).toBe('false');
    expect(result['theirs.summary']).toBe(
      'exists on shelf a, marked by stack "green", not this stack "blue": the apply will refuse it, adopt: true ' +
        'or not: set takeOver: true on its construct to take it from that stack',
    );
    expect(result['taken.summary']).toBe(
      'exists on shelf a, marked by stack "green", not this stack "blue": will be taken over (takeOver: true)',
    );
  });

  test('a read that knows no stack (an older synth) reads every marked object as its own', async () => {
    const result = await readBatch(
      widgetDomain(world),
      query(undefined, { theirs: { spec: { id: 'w2', size: 2 } } }),
      context(),
    );
    expect(result['theirs.in_sync']).toBe('true');
  });

  test("the apply refuses another stack's object even with adopt, takes it with takeOver, and marks it", async () => {
    await expect(
      applyBatch(
        widgetDomain(world),
        hookEnv('blue', { theirs: { spec: { id: 'w2', size: 5 }, adopt: true } }),
        context('blue'),
      ),
    ).rejects.toThrow(/were not applied \(theirs\)/);
    expect(lines.join('\n')).toMatch(/theirs: .*marked by stack "green", not this stack "blue".*set takeOver: true/);
    expect(world.live.get('w2')).toBe(2);
    await applyBatch(
      widgetDomain(world),
      hookEnv('blue', { taken: { spec: { id: 'w2', size: 5 }, takeOver: true } }),
      context('blue'),
    );
    expect(world.live.get('w2')).toBe(5);
    expect(world.marks?.get('w2')).toBe('blue');
  });

  test('the CLI takes the stack from HOMELAB_STACK and refuses one the rule does not allow', async () => {
    const run = (stack: string) =>
      runHandler(widgetDomain(world), ['batch', 'apply'], {
        stdin: async () => '',
        env: hookEnv(stack, { theirs: { spec: { id: 'w2', size: 7 } } }),
        out: () => undefined,
        log: (line) => lines.push(line),
      });
    expect(await run('blue')).toBe(1);
    expect(lines.join('\n')).toMatch(/marked by stack "green", not this stack "blue"/);
    lines = [];
    expect(await run('blue; rm -rf /')).toBe(1);
    expect(lines.join('\n')).toMatch(/HOMELAB_STACK must be 1 to 63 letters/);
    expect(world.live.get('w2')).toBe(2);
  });

  test("the rule: only a named mark of another stack is another stack's", () => {
    expect(isOtherStack('green', 'blue')).toBe(true);
    expect(isOtherStack('blue', 'blue')).toBe(false);
    expect(isOtherStack(undefined, 'blue')).toBe(false);
    expect(isOtherStack('green', undefined)).toBe(false);
    expect(receivedStackId('', 'x')).toBeUndefined();
    expect(receivedStackId('lab.prod-1', 'x')).toBe('lab.prod-1');
    expect(() => receivedStackId('-lab', 'x')).toThrow(/x must be/);
    expect(() => receivedStackId('a\nb', 'x')).toThrow(/x must be/);
  });
});
