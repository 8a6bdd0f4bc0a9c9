/**
 * The managed-object pattern (DESIGN.md): an `external` read, a lifecycle resource carrying the
 * destroy hook, a converge resource carrying the apply hook, and a check that puts the drift
 * summary in the plan. Every object kind is one of these; none builds its own Terraform.
 */
import { DataExternal } from '@cdktf/provider-external/lib/data-external';
import { ExternalProvider } from '@cdktf/provider-external/lib/provider';
import { DataResource, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { canonicalJson, digestOf } from '../../src/core/canonical';
import { ENV } from '../../src/core/protocol';
import { type HandlerDomain, handlerAsset } from './handler-asset';
import { addressName, claimName, destroyHook } from './object-address';

export interface ManagedObjectProps {
  /** The handler bundle that manages this kind. */
  readonly domain: HandlerDomain;
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
   * Prefix of the Terraform addresses (`<name>_read`, `<name>_converge`, ...).
   *
   * @default - the enclosing construct's path below the stack, with `/` turned into `_`
   */
  readonly name?: string;
}

export class ManagedObject extends Construct {
  /** The live read: `result.in_sync`, `result.summary`, `result.diff`. */
  readonly read: DataExternal;
  /** Holds identity and target; its destroy hook removes the object. */
  readonly lifecycle: DataResource;
  /** Holds the spec; replaced (and so re-applied) when the spec changes or the read drifts. */
  readonly converge: DataResource;
  /** The Terraform address prefix. */
  readonly name: string;

  constructor(scope: Construct, id: string, props: ManagedObjectProps) {
    super(scope, id);
    const stack = TerraformStack.of(this);
    this.name = claimName(this, props.name ?? addressName(scope));
    ensureExternalProvider(stack);
    const handler = handlerAsset(this, props.domain).path;
    const target = canonicalJson(props.target);
    const spec = canonicalJson(props.spec);
    const identity = canonicalJson(props.identity);

    this.read = new DataExternal(this, 'read', {
      program: ['node', handler, props.kind, 'read'],
      query: { kind: props.kind, target, spec },
    });
    this.read.overrideLogicalId(`${this.name}_read`);

    this.lifecycle = new DataResource(this, 'lifecycle', {
      input: { kind: props.kind, target, identity },
      triggersReplace: { identity: digestOf(props.identity) },
      provisioners: [{ type: 'local-exec', ...destroyHook(handler, props.kind) }],
    });
    this.lifecycle.overrideLogicalId(`${this.name}_lifecycle`);

    const result = (key: string) => `${this.read.fqn}.result["${key}"]`;
    // timestamp() is unknown at plan time, so drift plans a replacement, yet the state keeps
    // "in-sync" and the plan after the fixing apply is clean (DESIGN.md, verified).
    const sync = `\${${result('in_sync')} == "true" ? "in-sync" : replace(timestamp(), "/.*/", "in-sync")}`;
    this.converge = new DataResource(this, 'converge', {
      dependsOn: [this.lifecycle],
      input: { kind: props.kind, target, spec },
      triggersReplace: { spec: digestOf(props.spec), sync },
      provisioners: [
        {
          type: 'local-exec',
          command: `node "${handler}" ${props.kind} apply`,
          environment: { [ENV.target]: '${self.input.target}', [ENV.spec]: '${self.input.spec}' },
        },
      ],
    });
    this.converge.overrideLogicalId(`${this.name}_converge`);

    // Terraform re-evaluates checks after apply against the plan-time read, so the message says
    // when it was read. A check-scoped re-read would fix that, but Terraform then plans that read
    // on every run and no plan is ever empty (measured, terraform 1.11.4; terraform#36536).
    stack.addOverride(`check.${this.name}_in_sync`, {
      assert: [
        {
          condition: `\${${result('in_sync')} == "true"}`,
          error_message: `\${${result('summary')}} (read at plan time; apply converges it)`,
        },
      ],
    });
  }
}

/** The external data source needs a provider block; add one unless the stack already has it. */
const ensureExternalProvider = (stack: TerraformStack): void => {
  if (stack.node.tryFindChild(PROVIDER_ID) !== undefined) return;
  if (stack.node.findAll().some((c) => c instanceof ExternalProvider)) return;
  new ExternalProvider(stack, PROVIDER_ID);
};

const PROVIDER_ID = 'homelab-external';
