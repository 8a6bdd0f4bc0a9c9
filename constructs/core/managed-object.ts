/**
 * The managed-object pattern (DESIGN.md): the object's reading in its target's batch read, a
 * lifecycle resource carrying the destroy hook, a converge resource carrying the apply hook. Every
 * object kind is one of these; none builds its own Terraform.
 */
import { Construct } from 'constructs';
import { ENV } from '../../src/core/protocol';
import { Lazy } from './cdk';
import { digestText, jsonText, requirePlainIdentity } from './encode';
import { handlerAsset } from './handler-asset';
import { addressName, claimName, destroyHook } from './object-address';
import { ReadBatch } from './read-batch';
import { TerraformData } from './terraform-blocks';

export interface ManagedObjectProps {
  /**
   * The handler domain: `pve` and `linux` are built in. Objects of one domain whose `target` is
   * equal share one read per plan, so they must be served by the same bundle.
   */
  readonly domain: string;
  /**
   * Path of the handler bundle, for a domain of your own. It must answer `batch read` and
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
  /** The whole desired state, identity included. Stored in state, so it holds no secret. */
  readonly spec: Readonly<Record<string, unknown>>;
  /**
   * Prefix of the Terraform addresses (`<name>_lifecycle`, `<name>_converge`) and the object's
   * key in its batch read's result (`<name>.in_sync`, `<name>.summary`, `<name>.diff`).
   *
   * @default - the enclosing construct's path below the stack, with `/` turned into `_`
   */
  readonly name?: string;
  /**
   * Prefix of the batch read's Terraform names (`<batchLabel>_read`, `<batchLabel>_in_sync`),
   * usually the target construct's name. Only the first object of a batch sets it.
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
   * Objects whose changes this object's apply must follow, such as staged changes an apply step
   * makes live. Its converge references their converge ids: it runs after them, and it is
   * replaced (so its apply runs again) whenever one of them is, even when its own read was in
   * sync at plan time. Called at synth, so it may return objects declared after this one.
   *
   * @default - none
   */
  readonly follows?: () => readonly ManagedObject[];
}

export class ManagedObject extends Construct {
  /** The batch read this object's reading is in. */
  readonly batch: ReadBatch;
  /** Holds identity and target; its destroy hook removes the object. */
  readonly lifecycle: TerraformData;
  /** Holds the spec; replaced (and so re-applied) when the spec changes or the read drifts. */
  readonly converge: TerraformData;
  /** The Terraform address prefix. */
  readonly name: string;

  constructor(scope: Construct, id: string, props: ManagedObjectProps) {
    super(scope, id);
    requirePlainIdentity(scope, props.identity);
    this.name = claimName(this, props.name ?? addressName(scope));
    const handler = handlerAsset(this, props.domain, props.handlerBundle).path;
    const target = jsonText(props.target);
    const spec = jsonText(props.spec);
    this.batch = ReadBatch.of(this, { domain: props.domain, handler, target: props.target, label: props.batchLabel });
    const inSync = this.batch.add(this.name, props.kind, spec);

    this.lifecycle = new TerraformData(this, 'lifecycle', {
      input: { kind: props.kind, target, identity: jsonText(props.identity) },
      triggersReplace: { identity: digestText(props.identity) },
      localExec: props.destroyable === false ? undefined : destroyHook(handler, props.kind),
    });
    this.lifecycle.overrideLogicalId(`${this.name}_lifecycle`);

    // timestamp() is unknown at plan time, so drift plans a replacement, yet the state keeps
    // "in-sync" and the plan after the fixing apply is clean (DESIGN.md, verified).
    this.converge = new TerraformData(this, 'converge', {
      dependsOn: [this.lifecycle],
      input: { kind: props.kind, target, spec },
      triggersReplace: {
        spec: digestText(props.spec),
        sync: `\${${inSync} == "true" ? "in-sync" : replace(timestamp(), "/.*/", "in-sync")}`,
        ...(props.follows === undefined ? {} : { follows: followedIds(props.follows) }),
      },
      localExec: {
        command: `node "${handler}" ${props.kind} apply`,
        environment: { [ENV.target]: '${self.input.target}', [ENV.spec]: '${self.input.spec}' },
      },
    });
    this.converge.overrideLogicalId(`${this.name}_converge`);
  }

  /** Applies this object after `other` (another object's converge) and destroys it before it. */
  applyAfter(other: TerraformData): void {
    this.lifecycle.dependsOn = [`${other.terraformResourceType}.${other.friendlyUniqueId}`];
  }
}

/** The followed objects' converge ids, unknown at plan time for each one being replaced. */
const followedIds = (follows: () => readonly ManagedObject[]) =>
  Lazy.anyValue({ produce: () => follows().map((object) => object.converge.getStringAttribute('id')) });
