/**
 * The managed-object pattern (README, How it works): the object's reading in its target's batch read, its
 * entry in the target's batch apply, and a lifecycle resource carrying its destroy hook. Every
 * object kind is one of these; none builds its own Terraform.
 */
import { Construct } from 'constructs';
import type { TerraformValue } from '../../src/core/definition';
import { ENV } from '../../src/core/protocol';
import { tearsDown } from '../../src/core/registry';
import type { Problem } from '../../src/core/rules';
import { Lazy } from './cdk';
import { digestText, jsonText, requirePlainIdentity } from './encode';
import { handlerAsset, hookHandler } from './handler-asset';
import {
  addressName,
  claimName,
  destroyHook,
  hookCommand,
  lifecycleInput,
  recordedFound,
  recordedInput,
  requireHandlerNames,
} from './object-address';
import { checkAtSynth } from './problems';
import { stackIdOf } from './stack-identity';
import { TargetBatch, targetLabel } from './target-batch';
import { TerraformData } from './terraform-blocks';
import { noteObject } from './tombstones';

/** The context key whose `true` lets every object that does not set `adopt` be adopted (README, Adoption). */
export const ADOPT_CONTEXT = 'cdktf-homelab:adopt';

export interface ManagedObjectProps {
  /**
   * The handler domain: `pve` and `linux` are built in. Objects of one domain whose `target` is
   * equal share one read per plan, so they must be served by the same bundle.
   */
  readonly domain: string;
  /**
   * Path of the handler bundle, for a domain of your own. It must answer `batch read|apply` and
   * `<kind> apply|destroy` as `main()` from this library's handler CLI does.
   *
   * @default - the built-in bundle of `domain`
   */
  readonly handlerBundle?: string;
  /** The object kind: the handler's first argument, e.g. `metric-server`. */
  readonly kind: string;
  /** Connection settings. Stored in state and plans, so it must never hold a secret. */
  readonly target: Readonly<Record<string, unknown>>;
  /**
   * What names the object. A change destroys the old object and creates the new one; everything
   * else is converged in place.
   */
  readonly identity: Readonly<Record<string, unknown>>;
  /**
   * The keys of `identity` that say how destroy acts rather than which object it acts on (a Repo's
   * deleteOnDestroy). A change of one still replaces the lifecycle, whose hook then leaves the object: the
   * configuration still declares it (declared-identity.ts).
   *
   * @default - none: every key names the object
   */
  readonly settings?: readonly string[];
  /**
   * The whole desired state, identity included. Stored in state, so it holds no secret. A function
   * is called at synth, so the spec may list objects declared after this one.
   */
  readonly spec: Readonly<Record<string, unknown>> | (() => Readonly<Record<string, unknown>>);
  /**
   * Prefix of the object's Terraform address (`<name>_lifecycle`), its key in its batch read's
   * result (`<name>.in_sync`, `<name>.summary`, `<name>.diff`) and in its batch apply's triggers.
   *
   * @default - the enclosing construct's path below the stack, with `/` turned into `_`
   */
  readonly name?: string;
  /**
   * Prefix of the batch's Terraform names (`<batchLabel>_read`, `<batchLabel>_in_sync`,
   * `<batchLabel>_apply`), usually the target construct's name. Only the first object of a batch
   * sets it.
   *
   * @default - `<domain>_<digest of the target>`
   */
  readonly batchLabel?: string;
  /**
   * Whether the object has a destroy action. An object without one (an apply step, say) is only
   * forgotten by `terraform destroy`.
   *
   * @default true
   */
  readonly destroyable?: boolean;
  /**
   * Objects of the same target whose changes this object's apply must follow, such as staged
   * changes an apply step makes live: it is applied after them, and whenever one of them is, even
   * when its own read was in sync at plan time. Called at synth, so it may return objects declared
   * after this one.
   *
   * @default - none
   */
  readonly follows?: () => readonly ManagedObject[];
  /**
   * A value whose change re-sends what a read cannot compare (a write-only token): a
   * `<name>_resend` resource whose creation applies this one object again. Terraform compares it, so it may
   * be a Terraform value.
   *
   * @default - none
   */
  readonly resendOn?: string | number | TerraformValue;
  /**
   * Whether the apply may take over the object when it exists on the target without this stack's
   * mark of ownership (made by hand, say). Without it the apply refuses such an object, naming it.
   *
   * @default - `true` when the app's context sets `cdktf-homelab:adopt` to true, else false
   */
  readonly adopt?: boolean;
  /**
   * Whether the apply may take over the object when another stack's mark names it (two stacks declaring
   * one unit, drop-in or Repo). `adopt` never does: without this the apply refuses such an object, naming
   * both stacks, and a destroy leaves it. After the apply took it, the object is this stack's.
   *
   * @default false
   */
  readonly takeOver?: boolean;
  /**
   * Where the stack's ownership of the object is kept. `target`: the kind marks on the target the
   * objects it creates or adopts (its handler's `foreign`), or tracks none. `state`: the target has no
   * place for a mark, so the lifecycle records, when it is created, whether the object already existed
   * (its handler's `exists`); the apply refuses such an object and its destroy leaves it, unless `adopt`.
   *
   * @default 'target'
   */
  readonly ownership?: 'target' | 'state';
}

/**
 * An object a handler converges: its reading in its target's batch read, its entry in the batch
 * apply, and its lifecycle resource with its destroy hook. Every built-in kind declares one; a
 * kind of your own declares it with `domain` and `handlerBundle`.
 */
export class ManagedObject extends Construct {
  /** The batch this object is read and applied in. */
  readonly batch: TargetBatch;
  /** Holds the identity and the target's label; its destroy hook removes the object. */
  readonly lifecycle: TerraformData;
  /** Replaced when `resendOn` changes; its create hook applies this object alone. */
  readonly resend?: TerraformData;
  /** The Terraform address prefix. */
  readonly name: string;
  private readonly after = new Set<string>();

  constructor(scope: Construct, id: string, props: ManagedObjectProps) {
    super(scope, id);
    requireHandlerNames(this, props.domain, props.kind);
    requirePlainIdentity(scope, props.identity);
    this.name = claimName(this, props.name ?? addressName(scope));
    const handler = handlerAsset(this, props.domain, props.handlerBundle).path;
    const { spec } = props;
    const key = { domain: props.domain, handler, target: props.target, label: props.batchLabel };
    this.batch = TargetBatch.of(this, key);
    const label = targetLabel(key);
    const adopt = (props.adopt ?? this.node.tryGetContext(ADOPT_CONTEXT)) === true;
    const object = lifecycleInput(props.identity, props.target, label);
    const inState = props.ownership === 'state';
    const hook =
      props.destroyable === false
        ? undefined
        : destroyHook(hookHandler(this, props.domain, handler), props.kind, props.target, label, {
            adopt,
            stack: stackIdOf(this),
            declared: declaredOf(props.identity, props.settings),
            // A teardown lists only a lifecycle whose input is a literal, of a kind it may take (teardown.ts).
            object: inState || !tearsDown(props.kind) ? undefined : `${this.name}_lifecycle`,
          });
    this.lifecycle = new TerraformData(this, 'lifecycle', {
      // Terraform keeps the input as the lifecycle's creation recorded it, `found` included (ownership.ts).
      input: inState ? recordedInput(object, this.batch.found(this.name)) : object,
      ignoreChanges: inState ? ['input'] : undefined,
      // The digest of the identity, as every earlier version stored it: another form would replace
      // every lifecycle on upgrade, and a replacement runs the destroy hook.
      triggersReplace: { identity: digestText(props.identity) },
      localExec: hook,
    });
    this.lifecycle.overrideLogicalId(`${this.name}_lifecycle`);
    // Created only once the apply has rechecked the objects its plan read absent (batch-recheck.ts).
    if (inState) this.lifecycle.dependsOn = [this.batch.recheck];
    if (props.destroyable !== false) {
      const named = { name: this.name, kind: props.kind, label, identity: props.identity };
      const entry = { ...named, state: 'declared' as const, resend: props.resendOn !== undefined };
      noteObject(this, entry, { domain: props.domain, bundle: props.handlerBundle, settings: props.target });
    }
    const followed = () => (props.follows === undefined ? [] : props.follows());
    // Another target's object is not in this batch's read: a problem of the app (checkAtSynth), never followed.
    const follows = () => followed().flatMap((object) => (object.batch === this.batch ? [object.name] : []));
    if (props.follows !== undefined) checkAtSynth(this, () => followed().flatMap((o) => this.elsewhere(o)));
    this.batch.add(
      {
        name: this.name,
        kind: props.kind,
        spec: typeof spec === 'function' ? spec : () => spec,
        adopt,
        takeOver: props.takeOver === true,
        found: inState ? recordedFound(`terraform_data.${this.lifecycle.friendlyUniqueId}`) : undefined,
        follows,
        after: () => [...new Set([...follows(), ...this.after])],
      },
      this.lifecycle,
      hook,
    );
    if (props.resendOn !== undefined) this.resend = this.resendResource(handler, props);
  }

  /**
   * Applies this object after `other` and destroys it before `other`. Appends: each call adds one
   * edge, and a repeated call changes nothing. Inside one target the batch apply orders them; across
   * targets, this target's apply runs after the other's.
   */
  applyAfter(other: ManagedObject): void {
    if (other.batch === this.batch) this.after.add(other.name);
    else this.batch.applyAfter(other.batch, `${this.node.path} after ${other.node.path}`);
    const address = `terraform_data.${other.lifecycle.friendlyUniqueId}`;
    const edges = this.lifecycle.dependsOn ?? [];
    if (!edges.includes(address)) this.lifecycle.dependsOn = [...edges, address];
  }

  /** The problem of following `object`, when it is on another target: its reading is not in this batch's read. */
  private elsewhere(object: ManagedObject): Problem[] {
    if (object.batch === this.batch) return [];
    const says =
      `must name objects of the same target, got ${object.node.path} on another target ` +
      '(use applyAfter to order objects across targets)';
    return [{ prop: 'follows', says }];
  }

  private resendResource(handler: string, props: ManagedObjectProps): TerraformData {
    const { spec } = props;
    const specText =
      typeof spec === 'function' ? Lazy.stringValue({ produce: () => jsonText(spec()) }) : jsonText(spec);
    const resend = new TerraformData(this, 'resend', {
      dependsOn: [this.batch.apply],
      input: { target: jsonText(props.target), spec: specText },
      triggersReplace: { resendOn: props.resendOn },
      localExec: {
        command: hookCommand(handler, 'apply'),
        environment: {
          [ENV.kind]: props.kind,
          [ENV.stack]: stackIdOf(this),
          [ENV.target]: '${self.input.target}',
          [ENV.spec]: '${self.input.spec}',
        },
      },
    });
    resend.overrideLogicalId(`${this.name}_resend`);
    return resend;
  }
}

/** The identity split into what names the object and its destroy settings, for the hook; none without settings. */
const declaredOf = (identity: Readonly<Record<string, unknown>>, settings: readonly string[] = []) => {
  if (settings.length === 0) return undefined;
  const pick = (setting: boolean) =>
    Object.fromEntries(Object.entries(identity).filter(([key]) => settings.includes(key) === setting));
  return { names: pick(false), settings: pick(true) };
};
