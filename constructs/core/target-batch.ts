/**
 * One batch per (domain, target) in a stack: one `external` read, one check and one apply resource
 * for every object on the same cluster or host. A plan costs one handler process per target, an
 * apply one more, whatever the number of objects; one check names every drifted object, because
 * Terraform prints one warning per failed check and takes quadratic time to print many.
 */
import { Construct } from 'constructs';
import { digestOf } from '../../src/core/canonical';
import { packObjects } from '../../src/core/packed-objects';
import { APPLY, BATCH } from '../../src/core/protocol';
import { Lazy, TerraformStack } from './cdk';
import {
  applyEnvironment,
  applyInput,
  closedEntry,
  entryText,
  followsField,
  ownerFields,
  recordedLocal,
  refusable,
  refusedLines,
  triggersOf,
} from './batch-entries';
import { declareCheck } from './batch-check';
import { hasToken, jsonText, tokensAsText } from './encode';
import { declareOwnershipBlocks } from './ownership-blocks';
import { recordProblems } from './problems';
import { removingOn } from './removals';
import { stackIdOf } from './stack-identity';
import { BATCH_RESOURCES, Teardown, teardownListing } from './teardown';
import { ExternalRead, type LocalExec, TerraformData } from './terraform-blocks';

export interface TargetBatchKey {
  /** The handler bundle's domain. */
  readonly domain: string;
  /** The bundle's path inside the synthesized stack. */
  readonly handler: string;
  /** Connection settings; objects with equal targets share the batch. */
  readonly target: Readonly<Record<string, unknown>>;
  /** Prefix of the batch's Terraform names. @default - `<domain>_<digest of the target>` */
  readonly label?: string;
}

/** One object of the batch, as the construct that declares it registers it. */
export interface BatchMember {
  readonly name: string;
  readonly kind: string;
  /** The desired state, called at synth (a spec may list objects declared after this one). */
  readonly spec: () => Readonly<Record<string, unknown>>;
  /** Whether the apply may take the object over when it exists without this stack's mark. */
  readonly adopt: boolean;
  /** Whether the apply may take the object over when another stack's mark names it. */
  readonly takeOver: boolean;
  /**
   * What the object's lifecycle recorded it found at its creation, as an HCL expression ("" for
   * nothing), when the stack's state keeps its ownership (ownership.ts).
   */
  readonly found?: string;
  /** Objects whose being applied makes this one apply too (a network reload after its interfaces). */
  readonly follows: () => readonly string[];
  /** Names of objects of this batch that must be applied before it. */
  readonly after: () => readonly string[];
}

export class TargetBatch extends Construct {
  /** The stack's batch for `key`, created on first use. */
  static of(scope: Construct, key: TargetBatchKey): TargetBatch {
    const stack = TerraformStack.of(scope);
    const digest = keyDigest(key);
    const existing = stack.node.tryFindChild(`homelab-read-${digest}`);
    return existing instanceof TargetBatch ? existing : new TargetBatch(stack, `homelab-read-${digest}`, key, digest);
  }

  /** The data source; its result carries `<name>.in_sync`, `<name>.summary`, `<name>.diff`. */
  readonly read: ExternalRead;
  /** Replaced whenever an object must change; its create hook applies all of them in one run. */
  readonly apply: TerraformData;
  /** The Terraform name prefix of the read, its check and the apply. */
  readonly label: string;
  /** The handler bundle's path inside the synthesized stack. */
  private readonly handler: string;
  private readonly members = new Map<string, BatchMember>();
  /** Whether some object may be refused (refusable): then the check reads `local.<label>_refused`. */
  private mayRefuse = false;
  /** Set once some object's lifecycle records what the read found (`local.<label>_found` holds it). */
  private recheckAddress?: string;
  /** Lists the objects a destroy of the whole state removes in one run; made with the first destroyable object. */
  private teardown?: Teardown;
  /** The batches applied before this one, each with the ordering that asked for it. */
  private readonly before = new Map<TargetBatch, string>();

  private constructor(stack: TerraformStack, id: string, key: TargetBatchKey, digest: string) {
    super(stack, id);
    this.label = claimLabel(stack, targetLabel(key), digest);
    this.handler = key.handler;
    const stackId = stackIdOf(stack);
    const query = { [BATCH.target]: jsonText(key.target), [BATCH.stack]: stackId };
    const removals = () => removingField(this, targetLabel(key));
    this.read = new ExternalRead(this, 'read', {
      program: ['node', key.handler, BATCH.verb, 'read'],
      query: Lazy.anyValue({ produce: () => ({ ...query, ...removals(), ...this.queryEntries() }) }),
    });
    this.read.overrideLogicalId(`${this.label}_read`);
    // An object its lifecycle found and that is not adopted is named too (add() declares the local).
    declareCheck(stack, {
      label: this.label,
      read: this.read,
      mayRefuse: () => this.mayRefuse,
      size: () => this.members.size,
    });
    const drifted = Lazy.stringValue({ produce: () => this.drifted() });
    const input = () => ({
      ...applyInput(this.label, jsonText(key.target), drifted, this.recheckAddress !== undefined),
      ...this.teardown?.input(),
    });
    const applies = { command: `node "${key.handler}" ${APPLY.verb} apply`, environment: applyEnvironment(stackId) };
    this.apply = new TerraformData(this, 'apply', {
      triggersReplace: Lazy.stringValue({ produce: () => triggersOf(this.label, this.mayRefuse) }),
      input: Lazy.anyValue({ produce: input }),
      ignoreChanges: ['input'],
      localExec: applies,
    });
    // Its destroy hook, the target's teardown (teardown.ts), once an object is listed.
    const hooks = () => [applies, this.teardown?.hook()].flatMap((exec) => (exec ? [{ 'local-exec': exec }] : []));
    this.apply.addOverride('provisioner', Lazy.anyValue({ produce: hooks }));
    this.apply.overrideLogicalId(`${this.label}_apply`);
    BATCH_RESOURCES.add(this.apply);
    this.declareDrifted(stack);
    this.declareEntries(stack);
  }

  /**
   * What the read found of `name` for its lifecycle to record, as a template: "" when absent or when its
   * kind marks ownership on the target (ownership.ts). It reads one local, the read's `.found` groups
   * turned into a text per name, so each lifecycle names a small map, not the read's whole result
   * (reasoned: Terraform decodes a resource's references once per resource). Measured on 1000 metric
   * servers against the fake PVE, terraform 1.11.4: the plan from an empty state took 7.8 s against 4.95 s
   * before ownership was recorded.
   */
  found(name: string): string {
    this.recheckAddress ??= declareOwnershipBlocks(this, this.label, this.handler, this.read);
    return `\${lookup(local.${this.label}_found, "${name}", "")}`;
  }

  /**
   * The address of the apply's recheck (ownership-blocks.ts), which a lifecycle that records what the read found
   * depends on. Call after `found`.
   */
  get recheck(): string {
    return this.recheckAddress ?? '';
  }

  /**
   * Adds an object; the apply runs after its lifecycle resource is created. With its destroy `hook`, and the target's
   * settings known at synth, the target's teardown lists it (teardown.ts).
   */
  add(member: BatchMember, lifecycle: TerraformData, hook?: LocalExec): void {
    this.members.set(member.name, member);
    const listed = teardownListing(member.kind, hook, lifecycle.input);
    if (listed !== undefined) {
      this.teardown ??= new Teardown(TerraformStack.of(this), listed);
      const mayWaitFor = this.recheckAddress === undefined ? [] : [this.recheckAddress];
      this.teardown.add({ lifecycle, input: listed.input, environment: listed.environment, mayWaitFor });
    }
    if (refusable(member) && !this.mayRefuse) {
      // The lines of refused objects sit in one local: a failed check prints one value, not one per object.
      this.mayRefuse = true;
      const stack = TerraformStack.of(this);
      this.declareRecorded(stack);
      stack.addOverride(`locals.${this.label}_refused`, refusedLines(this.label));
    }
    this.apply.dependsOn = [...(this.apply.dependsOn ?? []), `terraform_data.${lifecycle.friendlyUniqueId}`];
  }

  /**
   * Makes this batch's apply run after `other`'s (`why`: an object here applied after one there).
   * Two targets each after the other would be a cycle Terraform refuses to plan, so the ordering is
   * left out and recorded among the app's problems, naming both orderings.
   */
  applyAfter(other: TargetBatch, why: string): void {
    if (other === this || this.before.has(other)) return;
    const back = other.pathTo(this);
    if (back !== undefined) {
      const says = `must not order two targets each after the other, got ${why}, while ${back}`;
      recordProblems(this, [{ prop: 'applyAfter', says }]);
      return;
    }
    this.before.set(other, why);
    this.apply.dependsOn = [...(this.apply.dependsOn ?? []), `terraform_data.${other.apply.friendlyUniqueId}`];
  }

  /** Why `target` is applied before this batch, when some chain of orderings says so. */
  private pathTo(target: TargetBatch, seen = new Set<TargetBatch>()): string | undefined {
    for (const [batch, why] of this.before) {
      if (batch === target) return why;
      if (seen.has(batch)) continue;
      seen.add(batch);
      const further = batch.pathTo(target, seen);
      if (further !== undefined) return `${why}, ${further}`;
    }
    return undefined;
  }

  /** Declares `local.<label>_recorded` (recordedLocal) over the refusable objects, whichever are added later. */
  private declareRecorded(stack: TerraformStack): void {
    const produce = () => recordedLocal([...this.members.values()].filter(refusable));
    stack.addOverride(`locals.${this.label}_recorded`, Lazy.stringValue({ produce }));
  }

  /**
   * The objects known at synth packed into one field; one holding a Terraform value under its name, for Terraform.
   * Each entry names what its object follows, so the read's `.drifted` holds it when one of them drifted.
   */
  private queryEntries(): Record<string, string> {
    const members = [...this.members.values()].map((m) => ({ ...m, spec: m.spec(), follows: m.follows() }));
    const known = members.filter((m) => !hasToken(m.spec));
    const packed = Object.fromEntries(
      known.map((m) => [m.name, { kind: m.kind, spec: m.spec, ...ownerFields(m), ...followsField(m.follows) }]),
    );
    const resolved = members
      .filter((m) => hasToken(m.spec))
      .map((m) => [m.name, closedEntry(entryText(m.kind, jsonText(m.spec), [], m, m.follows))]);
    return { ...(known.length > 0 ? { [BATCH.objects]: packObjects(packed) } : {}), ...Object.fromEntries(resolved) };
  }

  /** Declares `local.<label>_entries`: each object's closed entry text (closedEntry), by name. */
  private declareEntries(stack: TerraformStack): void {
    const produce = () =>
      Object.fromEntries(
        [...this.members.values()].map((m) => [
          m.name,
          closedEntry(entryText(m.kind, jsonText(m.spec()), m.after(), m)),
        ]),
      );
    stack.addOverride(`locals.${this.label}_entries`, Lazy.anyValue({ produce }));
  }

  /** The names of the objects the plan found not in sync, comma-separated; the apply acts on these. */
  private drifted(): string {
    return this.members.size === 0 ? '' : `\${join(",", local.${this.label}_drifted)}`;
  }

  /**
   * Declares `local.<label>_drifted`, the list of names the apply acts on: the read's `.drifted` (each object
   * not in sync or following one that is not: batch.ts), read as one key, plus the objects the apply would
   * refuse (refusable) whose lifecycle found them, which the read cannot see. A read without the key names
   * every object, so a broken read never plans in sync, and no error prints an expression over every
   * object (issue 30: 61 MB of log for 1000 objects). And `local.<label>_pending`: an unknown value under
   * each of those names, so each object's entry in the triggers indexes one map instead of evaluating a
   * conditional of its own (issue 30; timestamp(): triggersOf in batch-entries.ts).
   */
  private declareDrifted(stack: TerraformStack): void {
    const produce = () => {
      const members = [...this.members.values()];
      const all = members.map((m) => m.name).join(',');
      const result = `data.external.${this.read.friendlyUniqueId}.result`;
      const read = `split(",", lookup(${result}, "${BATCH.drifted}", "${all}"))`;
      const refused = `[for name, found in local.${this.label}_recorded : name if found != ""]`;
      return this.mayRefuse ? `\${distinct(compact(concat(${read}, ${refused})))}` : `\${compact(${read})}`;
    };
    stack.addOverride(`locals.${this.label}_drifted`, Lazy.stringValue({ produce }));
    stack.addOverride(
      `locals.${this.label}_pending`,
      `\${{ for name in local.${this.label}_drifted : name => replace(timestamp(), "/.*/", "") }}`,
    );
  }
}

/** `.removing` when the plan removes objects of the target whose read says what their removal does, else nothing. */
const removingField = (scope: Construct, label: string): Record<string, string> => {
  const removing = removingOn(scope, label);
  return Object.keys(removing).length === 0 ? {} : { [BATCH.removing]: JSON.stringify(removing) };
};

const keyDigest = (key: TargetBatchKey): string =>
  digestOf({ domain: key.domain, handler: key.handler, target: tokensAsText(key.target) }).slice(0, 12);

/**
 * The label `key` asks for, which its objects' lifecycles store: a clash with another target's gets a
 * suffix in the batch's names only (claimLabel), so a retired object computes the same label alone.
 */
export const targetLabel = (key: TargetBatchKey): string => key.label ?? `${key.domain}_${keyDigest(key).slice(0, 8)}`;

const labels = new WeakMap<TerraformStack, Set<string>>();

/** Two targets with one label (the same construct id in two scopes) get the digest appended. */
const claimLabel = (stack: TerraformStack, wanted: string, digest: string): string => {
  const taken = labels.get(stack) ?? new Set<string>();
  labels.set(stack, taken);
  const label = taken.has(wanted) ? `${wanted}_${digest.slice(0, 8)}` : wanted;
  taken.add(label);
  return label;
};
