/**
 * A handler domain of widgets on a map, for the batch and CLI tests: it counts connections and
 * fetches; a widget named `broken` cannot be read, and reading one named `unreached` finds the
 * shelf unreachable (as a kind that keeps a failed call as one object's reading would).
 */
import * as z from 'zod/mini';
import { TargetUnreachable } from '../../../../src/core/batch';
import { HandlerError } from '../../../../src/core/errors';
import { defineKind, type HandlerDomain, type Reading } from '../../../../src/core/kind';

export interface WidgetWorld {
  readonly live: Map<string, number>;
  readonly calls: string[];
  /** The widgets this stack created or adopted; when set, a live widget not in it is foreign. */
  readonly owned?: Set<string>;
  /** The shelf has no place for a mark: the kind says whether a widget exists, the state keeps ownership. */
  readonly unmarked?: boolean;
  /** The stack each widget's mark names, when set; the apply writes the run's stack into it (stack-id.ts). */
  readonly marks?: Map<string, string>;
  /** What a read finds besides each widget (Reading.basis), when set; the apply notes in `planned` what it got. */
  readonly basis?: Map<string, string>;
  readonly planned?: Map<string, string | undefined>;
  /** What the destroy of each widget does besides removing it, when set: the kind then reads a plan's removals. */
  readonly removalWords?: Map<string, string>;
}

const widgetSpec = z.object({ id: z.string().check(z.minLength(1)), size: z.number() });

export const widgetDomain = (world: WidgetWorld) => {
  const widget = defineKind({
    spec: widgetSpec,
    identity: z.object({ id: z.string().check(z.minLength(1)) }),
    async fetch(session: WidgetWorld, specs: ReadonlyArray<{ id: string; size: number }>) {
      session.calls.push(`fetch ${specs.map((s) => s.id).join(',')}`);
      return new Map(session.live);
    },
    read(spec, live: Map<string, number>): Reading {
      if (spec.id === 'broken') throw new HandlerError('Widget unreadable', 'the shelf is on fire');
      if (spec.id === 'unreached') throw new TargetUnreachable('Shelf unreachable', 'no member of the shelf answered');
      const basis = world.basis?.get(spec.id);
      if (basis !== undefined) return { inSync: live.get(spec.id) === spec.size, summary: 'based', diff: {}, basis };
      const size = live.get(spec.id);
      if (size === undefined) return { inSync: false, summary: `widget ${spec.id} is absent`, diff: {} };
      if (size === spec.size) return { inSync: true, summary: `widget ${spec.id} is in sync`, diff: {} };
      return { inSync: false, summary: `widget ${spec.id} differs`, diff: { size: { live: size, want: spec.size } } };
    },
    // Ownership is tracked only in a world that keeps it, so the other tests fetch as before.
    ...(world.owned === undefined
      ? {}
      : {
          foreign: (spec: { id: string; size: number }, live: Map<string, number>) =>
            live.has(spec.id) && !world.owned?.has(spec.id),
        }),
    ...(world.marks === undefined
      ? {}
      : { markedBy: (spec: { id: string; size: number }) => world.marks?.get(spec.id) }),
    ...(world.unmarked === true
      ? { exists: (spec: { id: string; size: number }, live: Map<string, number>) => live.has(spec.id) }
      : {}),
    async apply(session: WidgetWorld, spec, context) {
      context.log(`widget ${spec.id}: setting size ${spec.size}`);
      session.live.set(spec.id, spec.size);
      session.owned?.add(spec.id);
      if (context.stack !== undefined) session.marks?.set(spec.id, context.stack);
      session.planned?.set(spec.id, context.basis);
    },
    ...(world.removalWords === undefined
      ? {}
      : {
          async readRemovals(session: WidgetWorld, removals: ReadonlyArray<{ identity: { id: string } }>) {
            session.calls.push(`removals ${removals.map(({ identity }) => identity.id).join(',')}`);
            return removals.map(({ identity }) => world.removalWords?.get(identity.id));
          },
        }),
    // What a domain's destroyAll gets: the widget's checked identity.
    removal: (identity: { id: string }) => identity,
    async destroy(session: WidgetWorld, identity) {
      if (identity.id === 'stuck')
        throw new HandlerError('Widget not removed', 'the server said:\nline two', { Host: 'h1' });
      session.live.delete(identity.id);
    },
  });
  return {
    target: z.object({ shelf: z.string() }),
    describe: (target) => `shelf ${target.shelf}`,
    connect: async (target) => {
      if (target.shelf === 'gone') throw new HandlerError('Shelf unreachable', 'shelf gone did not answer');
      world.calls.push(`connect ${target.shelf}`);
      return world;
    },
    close: async () => {
      world.calls.push('close');
    },
    kinds: { widget: async () => widget },
  } satisfies HandlerDomain<WidgetWorld, { shelf: string }>;
};
