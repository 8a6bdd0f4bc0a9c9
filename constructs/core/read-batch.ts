/**
 * One `external` read per (domain, target) in a stack: every object on the same cluster or host is
 * read by one handler process, which answers each object under its own name. A plan then costs one
 * process per target instead of one per object, and one check names every drifted object, because
 * Terraform prints one warning per failed check and takes quadratic time to print many.
 */
import { Construct } from 'constructs';
import { digestOf } from '../../src/core/canonical';
import { BATCH, resultKey } from '../../src/core/protocol';
import { Lazy, TerraformStack } from './cdk';
import { escapeTemplate, jsonText } from './encode';
import { ExternalRead } from './terraform-blocks';

export interface ReadBatchKey {
  /** The handler bundle's domain. */
  readonly domain: string;
  /** The bundle's path inside the synthesized stack. */
  readonly handler: string;
  /** Connection settings; objects with equal targets share the batch. */
  readonly target: Readonly<Record<string, unknown>>;
  /** Prefix of the batch's Terraform names. @default - `<domain>_<digest of the target>` */
  readonly label?: string;
}

export class ReadBatch extends Construct {
  /** The stack's batch for `key`, created on first use. */
  static of(scope: Construct, key: ReadBatchKey): ReadBatch {
    const stack = TerraformStack.of(scope);
    const digest = digestOf({ domain: key.domain, handler: key.handler, target: key.target }).slice(0, 12);
    const existing = stack.node.tryFindChild(`homelab-read-${digest}`);
    return existing instanceof ReadBatch ? existing : new ReadBatch(stack, `homelab-read-${digest}`, key, digest);
  }

  /** The data source; its result carries `<name>.in_sync`, `<name>.summary`, `<name>.diff`. */
  readonly read: ExternalRead;
  /** The Terraform name prefix of the read and its check. */
  readonly label: string;
  private readonly objects = new Map<string, string>();

  private constructor(stack: TerraformStack, id: string, key: ReadBatchKey, digest: string) {
    super(stack, id);
    this.label = claimLabel(stack, key.label ?? `${key.domain}_${digest.slice(0, 8)}`, digest);
    const query = { [BATCH.target]: jsonText(key.target) };
    this.read = new ExternalRead(this, 'read', {
      program: ['node', key.handler, BATCH.verb, 'read'],
      query: Lazy.anyValue({ produce: () => ({ ...query, ...Object.fromEntries(this.objects) }) }),
    });
    this.read.overrideLogicalId(`${this.label}_read`);
    // Terraform re-evaluates checks after apply against the plan-time read, so the message says
    // when it was read. A check-scoped re-read would fix that, but Terraform then plans that read
    // on every run and no plan is ever empty (measured, terraform 1.11.4; terraform#36536).
    stack.addOverride(`check.${this.label}_in_sync`, {
      assert: [
        {
          condition: `\${${this.read.result(BATCH.inSync)} == "true"}`,
          error_message: `\${${this.read.result(BATCH.summary)}}\n(read at plan time; apply converges it)`,
        },
      ],
    });
  }

  /** Adds an object; returns the expression of its `in_sync` ("true"/"false"). */
  add(name: string, kind: string, spec: string): string {
    this.objects.set(name, `{"kind":${escapeTemplate(JSON.stringify(kind))},"spec":${spec}}`);
    return this.read.result(resultKey(name, 'in_sync'));
  }
}

const labels = new WeakMap<TerraformStack, Set<string>>();

/** Two targets with one label (the same construct id in two scopes) get the digest appended. */
const claimLabel = (stack: TerraformStack, wanted: string, digest: string): string => {
  const taken = labels.get(stack) ?? new Set<string>();
  labels.set(stack, taken);
  const label = taken.has(wanted) ? `${wanted}_${digest.slice(0, 8)}` : wanted;
  taken.add(label);
  return label;
};
