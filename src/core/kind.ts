/**
 * What a handler domain and an object kind implement. A domain connects to a target once per
 * process; a kind reads all of its objects on that target from one fetch, so a plan pays one
 * process and a handful of calls per target, not one process per object.
 */
import type { ZodMiniType } from 'zod/mini';
import type { Clock } from './clock';
import type { FieldDiff } from './protocol';
import type { StopSignal } from './stop';

/** Progress and warnings: one stderr line each, shown by `terraform apply`. */
export type Log = (line: string) => void;

/** What an object's construct says of its ownership (ownership.ts): `adopt: true`, `takeOver: true`. */
export interface Owned {
  readonly adopt: boolean;
  readonly takeOver: boolean;
}

export interface KindContext {
  readonly env: NodeJS.ProcessEnv;
  readonly log: Log;
  readonly clock: Clock;
  /** Read between an apply's steps: once it has a reason, stop at the next safe point (stop.ts). */
  readonly stop?: StopSignal;
  /**
   * The stack this run works for (stack-id.ts): the read's `.stack`, a hook's HOMELAB_STACK. A kind that
   * marks its objects writes it into the mark. Undefined for a by-hand run and an older synth.
   */
  readonly stack?: string;
  /**
   * Set while a batch apply applies an object whose construct says `takeOver: true`: a kind whose apply finds
   * another stack's mark only mid-write (a fetch ask raced by another stack's) may then take it.
   */
  readonly takeOver?: boolean;
  /**
   * Set while a batch apply applies an object whose plan's reading carried a `basis` (Reading.basis): what that
   * plan read that decides the write. The kind's apply refuses the object, writing nothing, when its own read differs.
   */
  readonly basis?: string;
  /**
   * The objects of the target that this plan removes, of the kinds whose destroy may do more than remove them (the
   * read's `.removing`, batch-removals.ts): each hook runs before the target's batch apply, so a read may judge its
   * objects as those destroys leave them.
   */
  readonly removing?: readonly RemovedObject[];
  /**
   * Set by a domain's `applyAll` for the items it applies: each one's `change` (ObjectKind.change), for a kind whose
   * apply must tell what the run itself wrote from what someone else did (a network apply, the interfaces staged
   * before its reload).
   */
  readonly batch?: readonly unknown[];
}

/** An object a plan removes: its kind and what names it, as its lifecycle stored it (not yet checked). */
export interface RemovedObject {
  readonly kind: string;
  readonly identity: unknown;
  /** Its construct says `adopt: true`: a kind that marks its objects may destroy one without its mark. */
  readonly adopt?: boolean;
}

/** What a plan shows for one object. */
export interface Reading {
  readonly inSync: boolean;
  /** One human line: what differs, "in sync", or "absent". */
  readonly summary: string;
  /** The differing non-secret fields. */
  readonly diff: FieldDiff;
  /**
   * What the object's lifecycle records if it is created now, for a kind whose ownership the stack's
   * state keeps (`exists`): set when the object exists on the target (ownership.ts).
   */
  readonly found?: string;
  /**
   * Set when the object is absent, its kind's ownership is kept in the state (`exists`) and its construct does
   * not say adopt: its lifecycle, if created now, records nothing found, so the apply must find it still absent.
   */
  readonly absent?: true;
  /**
   * What the read found that decides what its apply writes or overwrites (a Repo's owned fields as a digest, its
   * clone Secret present or not), as short text: the plan's apply gets it back (`KindContext.basis`), so a change
   * after the plan, of the object or of another it depends on, cannot change the write unsaid.
   */
  readonly basis?: string;
  /**
   * Set where the kind decides, by its apply's own judgement, that the apply will refuse or leave (some of) what the
   * reading names: the drift warning then promises no convergence (batch.ts `.converges`). Never read from the
   * summary's words, which a refusal worded another way escaped. @default - the apply converges what it names
   */
  readonly converges?: false;
}

/**
 * One object kind over a domain's session `S`. `Change` and `Removal` are what the domain's own batch
 * takes of one object (a Linux kind's unit change and unit removal), for a domain with `applyAll` or
 * `destroyAll`.
 */
export interface ObjectKind<S, Spec, Identity, Live, Change = never, Removal = never> {
  /** The spec the construct synthesizes, re-checked at the handler boundary. */
  readonly spec: ZodMiniType<Spec>;
  /** What names the object: all that destroy gets. */
  readonly identity: ZodMiniType<Identity>;
  /**
   * Everything the readings of `specs` need, in as few calls as the API allows. `batch`, in a batch read: every
   * object it reads on the target, of every kind, as the domain's `applyAll` takes it (`change`), for a kind whose
   * reading depends on what the apply does to the others (a unit's `enabled` on the drop-ins written with it).
   */
  fetch(session: S, specs: readonly Spec[], context: KindContext, batch?: readonly Change[]): Promise<Live>;
  /** One object's reading over the fetched data; a throw marks only this object as unreadable. */
  read(spec: Spec, live: Live, context: KindContext): Reading;
  /** Reads, writes the minimal change, reads back; fails when the object did not converge. */
  apply(session: S, spec: Spec, context: KindContext): Promise<void>;
  /**
   * Whether the object exists on the target without this stack's mark of ownership, over the
   * fetched data: the read then says so, and the apply refuses it unless its construct says
   * `adopt: true` (ownership.ts). The kind's apply sets the mark, changing nothing the object does.
   *
   * @default - not tracked: every object counts as this stack's
   */
  foreign?(spec: Spec, live: Live): boolean;
  /**
   * The stack the object's mark names, over the fetched data; undefined when the object is absent, carries
   * no mark, or a mark naming no stack. One naming another stack than the run's makes the read say so and
   * the apply refuse the object even with `adopt: true`, unless its construct says `takeOver: true`
   * (ownership.ts, stack-id.ts); the kind's destroy leaves such an object.
   *
   * @default - marks name no stack
   */
  markedBy?(spec: Spec, live: Live): string | undefined;
  /**
   * Whether the object exists on the target, over the fetched data, for a kind whose target has no
   * place for a mark of ownership: the read says so, and a lifecycle created while it exists records
   * that the stack found the object rather than created it (ownership.ts).
   *
   * @default - ownership is marked on the target (`foreign`), or not tracked
   */
  exists?(spec: Spec, live: Live): boolean;
  /**
   * Removes the object; absent for a kind with nothing to remove. `adopt`: its construct says
   * `adopt: true`, so a kind that marks its objects on the target may remove one without the mark.
   */
  destroy?(session: S, identity: Identity, context: KindContext, adopt?: boolean): Promise<void>;
  /**
   * What the destroy of each of `removals` (objects the plan removes: batch-removals.ts) would do besides removing it,
   * in words, or undefined where nothing: a batch read's plan says it, since its "will be destroyed" does not. Read
   * as the destroy reads it: the read cannot see the state, so it may be said of an object the plan does not destroy.
   * `batch`: every object the batch read reads, as `fetch` gets it (what the stack still declares).
   *
   * @default - a removal does what its plan line says
   */
  readRemovals?(
    session: S,
    removals: ReadonlyArray<{ readonly identity: Identity; readonly adopt: boolean }>,
    context: KindContext,
    batch?: readonly Change[],
  ): Promise<ReadonlyArray<string | undefined>>;
  /**
   * How many of this kind's objects one batch apply may apply at once over the session: more than
   * one for a kind whose apply mostly waits (a fetch ask). @default 1
   */
  readonly applyConcurrency?: number;
  /**
   * The object as its domain's `applyAll` takes it, with what its construct says of ownership (`owned`), for a kind
   * whose reading of another object depends on whether the apply refuses this one. @default - none: `applyAll` does
   * not apply the object
   */
  readonly change?: (spec: Spec, owned: Owned) => Change;
  /**
   * The object as its domain's `destroyAll` takes it. @default - none: its own `destroy` removes it
   */
  readonly removal?: (identity: Identity, context: KindContext, adopt: boolean) => Removal;
}

/**
 * Any kind of session `S`, as a handler table holds it: its spec, identity and live types hidden but
 * kept together. `open` hands the kind to a function generic in them, so a value reaches the kind's
 * methods only through the kind's own schemas, parsed once at the boundary. `defineKind` makes it.
 */
export interface AnyKind<S, Change = never, Removal = never> {
  open<R>(use: <Spec, Identity, Live>(kind: ObjectKind<S, Spec, Identity, Live, Change, Removal>) => R): R;
}

/** One object a batch apply acts on, in an order where everything in `after` comes first. */
export interface ApplyItem<S, Change = never> {
  /** The object's Terraform name: its log lines and its failure are prefixed with it. */
  readonly name: string;
  /** Its kind's name: the default loop applies one kind's items `concurrency` at a time. */
  readonly kind: string;
  /** Its kind's `applyConcurrency`. */
  readonly concurrency: number;
  /** Names of objects of the same batch that must be applied before it. */
  readonly after: readonly string[];
  /** Whether the construct says `adopt: true`: the apply may take over an object it did not create. */
  readonly adopt?: boolean;
  /** Whether its lifecycle recorded that the object existed before this stack declared it (ownership.ts). */
  readonly found?: boolean;
  /** Whether the plan read it absent (its kind's ownership in the state, no adopt): it must not exist now. */
  readonly absent?: boolean;
  /** Whether the construct says `takeOver: true`: the apply may take an object another stack marked. */
  readonly takeOver?: boolean;
  /** What its plan read that decides its write (Reading.basis), for a domain's `applyAll`; none without one. */
  readonly basis?: string;
  /** Its kind's apply over the spec parsed at the boundary. */
  readonly apply: (session: S, context: KindContext) => Promise<void>;
  /** The object as the domain's `applyAll` takes it (`ObjectKind.change`), when its kind says. */
  readonly change?: Change;
}

/** One object a destroy run removes: its kind's destroy over its checked identity, and the context its lines go to. */
export interface DestroyItem<S, Removal = never> {
  readonly context: KindContext;
  /** Whether its construct says `adopt: true` (the hook's HOMELAB_ADOPT). */
  readonly adopt?: boolean;
  /** Its kind's destroy over the identity parsed at the boundary. */
  readonly destroy: (session: S) => Promise<void>;
  /** The object as the domain's `destroyAll` takes it (`ObjectKind.removal`), when its kind says. */
  readonly removal?: Removal;
}

/** Each item's outcome by name: undefined when it converged, else why not. */
export type ApplyOutcomes = ReadonlyMap<string, Error | undefined>;

/**
 * Which identity a connection is made with: `read` for a plan's batch read and a by-hand read,
 * `write` for applies, destroys and the task polls they start. A target that names one identity
 * gives it to both; one that names a read identity keeps a plan away from the write secret.
 */
export type Role = 'read' | 'write';

/**
 * A handler domain: how to reach one target, and its kinds, loaded lazily. `Change` and `Removal`: what its
 * own `applyAll` and `destroyAll` take of one object (`ObjectKind.change`, `removal`).
 */
export interface HandlerDomain<S, Target, K extends string = string, Change = unknown, Removal = unknown> {
  readonly target: ZodMiniType<Target>;
  /** The target in a message: `PVE cluster https://n1:8006`, `root@10.0.0.2:22`. */
  describe(target: Target): string;
  /** Connects with the target's identity for `role`, and no other secret. */
  connect(target: Target, context: KindContext, role: Role): Promise<S>;
  close(session: S): Promise<void>;
  readonly kinds: Readonly<Record<K, () => Promise<AnyKind<S, Change, Removal>>>>;
  /**
   * Applies a batch as one unit of work (one daemon-reload for every unit of a host, say). An item
   * left out of the answer counts as not applied.
   *
   * @default - each item by its kind's `apply`, in order, an item after a failed one skipped
   */
  applyAll?(session: S, items: readonly ApplyItem<S, Change>[], context: KindContext): Promise<ApplyOutcomes>;
  /**
   * Whether `applyAll` reads `context.stop` between its steps (stop.ts): then SIGTERM, SIGINT or the
   * parent gone stop the run at its next safe point; otherwise the run dies at once, as before.
   *
   * @default - true without an `applyAll` (the shared loop reads it), else false
   */
  readonly stopsAtSafePoints?: boolean;
  /**
   * Destroys objects that reached one destroy run together (src/core/destroy-relay/) as one unit of work
   * (their stops queued at once and one daemon-reload for a host's units, say): each item's error,
   * in order, or undefined once it is gone. Terraform never runs the destroys of two objects where
   * one depends on the other at once, so the items need no order among them.
   *
   * @default - each item by its kind's `destroy`, all at once
   */
  destroyAll?(session: S, items: readonly DestroyItem<S, Removal>[]): Promise<ReadonlyArray<Error | undefined>>;
}

/** A kind with its own types, and sealed as `AnyKind` for a handler table. */
export type DefinedKind<S, Spec, Identity, Live, Change = never, Removal = never> = ObjectKind<
  S,
  Spec,
  Identity,
  Live,
  Change,
  Removal
> &
  AnyKind<S, Change, Removal>;

/** Keeps a kind's own types while checking it against the contract, and seals it for a handler table. */
export const defineKind = <S, Spec, Identity, Live, Change = never, Removal = never>(
  kind: ObjectKind<S, Spec, Identity, Live, Change, Removal>,
): DefinedKind<S, Spec, Identity, Live, Change, Removal> => ({ ...kind, open: (use) => use(kind) });
