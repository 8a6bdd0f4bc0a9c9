/**
 * The stop port (issue 26 class 4): which process events become a stop, that the first reason
 * wins, the one line a stopped batch prints, and the batch loop stopping between objects.
 */
import { applyBatch } from '../../../../src/core/batch-apply';
import { systemClock } from '../../../../src/core/clock';
import {
  PARENT_CHECK_MS,
  type StoppableProcess,
  Stopped,
  stoppedLine,
  stopPoint,
  stopSource,
  watchProcess,
} from '../../../../src/core/stop';
import { widgetDomain } from './fake-domain';

/** A process port driven by hand: its parent, its signal handlers, its stream errors, its timer. */
const handProcess = () => {
  const state = {
    ppid: 100,
    /** The process that started the parent (terraform), and whether it runs. */
    starter: 50,
    starterAlive: true,
    signals: new Map<string, () => void>(),
    streams: [] as Array<(s: string, e: Error) => void>,
  };
  const ticks: Array<() => void> = [];
  const proc: StoppableProcess = {
    ppid: () => state.ppid,
    parentOf: (pid) => (pid === 100 ? state.starter : undefined),
    alive: (pid) => pid === state.starter && state.starterAlive,
    onSignal: (name, handler) => void state.signals.set(name, handler),
    onStreamError: (handler) => void state.streams.push(handler),
    every: (ms, tick) => {
      expect(ms).toBe(PARENT_CHECK_MS);
      ticks.push(tick);
    },
  };
  return { state, proc, tick: () => ticks.forEach((tick) => tick()) };
};

describe('watchProcess', () => {
  test.each([
    ['SIGTERM', (p: ReturnType<typeof handProcess>) => p.state.signals.get('SIGTERM')!(), 'SIGTERM'],
    ['SIGINT', (p: ReturnType<typeof handProcess>) => p.state.signals.get('SIGINT')!(), 'SIGINT'],
    [
      'the parent exiting (re-parented)',
      (p: ReturnType<typeof handProcess>) => {
        p.state.ppid = 1;
        p.tick();
      },
      'its parent process 100 exited',
    ],
    [
      // terraform SIGKILLed: the hook's shell lives on, so the parent never changes (the campaign's orphans).
      'the process that started the hook exiting',
      (p: ReturnType<typeof handProcess>) => {
        p.state.starterAlive = false;
        p.tick();
      },
      'the process that started its hook (50) exited',
    ],
    [
      'stdout closing',
      (p: ReturnType<typeof handProcess>) => p.state.streams[0]!('stdout', new Error('write EPIPE')),
      'its stdout closed (write EPIPE)',
    ],
  ])('%s stops the run', (_name, event, reason) => {
    const hand = handProcess();
    const { signal, stop } = stopSource();
    watchProcess(hand.proc, stop);
    hand.tick();
    expect(signal.reason).toBeUndefined();
    event(hand);
    expect(signal.reason).toBe(reason);
  });

  test('the first reason wins', () => {
    const hand = handProcess();
    const { signal, stop } = stopSource();
    watchProcess(hand.proc, stop);
    hand.state.signals.get('SIGINT')!();
    hand.state.signals.get('SIGTERM')!();
    expect(signal.reason).toBe('SIGINT');
  });
});

test('stopPoint throws what the object did and left once a stop is asked, and nothing before', () => {
  const { signal, stop } = stopSource();
  expect(() => stopPoint(signal, 'n1 reloaded', 'n2 not reloaded')).not.toThrow();
  stop('SIGTERM');
  expect(() => stopPoint(signal, 'n1 reloaded', 'n2 not reloaded')).toThrow(
    'stopped (SIGTERM) after n1 reloaded; n2 not reloaded',
  );
  expect(() => stopPoint(signal, '', 'n1, n2 not reloaded')).toThrow(
    'stopped (SIGTERM) before it began; n1, n2 not reloaded',
  );
});

test('the stopped line names what was applied, cut, failed and not started', () => {
  const line = stoppedLine('SIGINT', {
    applied: ['a'],
    partly: [['net', new Stopped('SIGINT', 'n1 reloaded', 'n2 not reloaded')]],
    failed: ['b'],
    notStarted: [],
  });
  expect(line).toBe(
    'stopped by SIGINT at a safe point, nothing more was written: applied a; net stopped after n1 reloaded; ' +
      'n2 not reloaded; failed b; not started none',
  );
});

describe('the batch apply loop', () => {
  const env = (names: string[]) => ({
    HOMELAB_TARGET: JSON.stringify({ shelf: 'a' }),
    HOMELAB_DRIFTED: names.join(','),
    ...Object.fromEntries(
      names.map((name, index) => [
        `HOMELAB_OBJECT_${index}`,
        JSON.stringify({ kind: 'widget', spec: { id: name, size: 2 } }),
      ]),
    ),
  });

  test('stops between objects: the one applying finishes, the rest are not started, one line says so', async () => {
    const world = { live: new Map<string, number>(), calls: [] };
    const lines: string[] = [];
    const { signal, stop } = stopSource();
    const log = (line: string) => {
      lines.push(line);
      if (line.startsWith('w2:')) stop('SIGTERM'); // arrives while w2 is being applied
    };
    const run = applyBatch(widgetDomain(world), env(['w1', 'w2', 'w3', 'w4']), {
      env: {},
      log,
      clock: systemClock,
      stop: signal,
    });
    await expect(run).rejects.toThrow(
      'Apply stopped: stopped by SIGTERM at a safe point, nothing more was written: applied w1, w2; not started w3, w4',
    );
    expect([...world.live.keys()]).toEqual(['w1', 'w2']);
    expect(world.calls).toEqual(['connect a', 'close']);
  });

  test('a stop before the run connects starts nothing', async () => {
    const world = { live: new Map<string, number>(), calls: [] };
    const { signal, stop } = stopSource();
    stop('its parent process 7 exited');
    const run = applyBatch(widgetDomain(world), env(['w1']), {
      env: {},
      log: () => undefined,
      clock: systemClock,
      stop: signal,
    });
    await expect(run).rejects.toThrow(/applied none; not started w1$/);
    expect(world.calls).toEqual([]);
  });
});

test('a hook started by init (its shell already orphaned) is watched by its parent alone', () => {
  const hand = handProcess();
  hand.state.starter = 1;
  hand.state.starterAlive = false;
  const { signal, stop } = stopSource();
  watchProcess(hand.proc, stop);
  hand.tick();
  expect(signal.reason).toBeUndefined();
});
