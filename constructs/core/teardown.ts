/**
 * A target's teardown resource: one `terraform_data` per target that lists its objects' destroy requests, each
 * lifecycle's stored input read from that lifecycle, so Terraform destroys it before any of them. Its destroy hook
 * removes them all in one run when Terraform destroys the whole state (src/core/destroy-relay/teardown.ts) and each
 * object's own hook then only prints its outcome. Without it, a destroy of N objects took a run per Terraform slot:
 * 23 runs for 200 units (issue 30). Listed are the objects of kinds whose destroys may run together (KINDS'
 * `tearsDown`) whose lifecycle neither waits for nor is waited for by another resource: Terraform orders those, and
 * the teardown would not.
 */
import { Construct } from 'constructs';
import { OBJECT_FIELDS, TEARDOWN_FIELDS_PREFIX, TEARDOWN_PREFIX } from '../../src/core/destroy-relay/teardown';
import { tearsDown } from '../../src/core/registry';
import { ENV } from '../../src/core/protocol';
import { Lazy, TerraformResource, TerraformStack } from './cdk';
import { type LocalExec, TerraformData } from './terraform-blocks';

/** What one object's lifecycle brings: its resource and its destroy hook's variables. */
export interface TeardownMember {
  readonly lifecycle: TerraformData;
  readonly environment: Readonly<Record<string, string>>;
  /** What the lifecycle may wait for and still be listed: its batch's recheck, which no destroy orders. */
  readonly mayWaitFor: readonly string[];
}

/**
 * What the teardown takes of an object's destroy `hook`: its command, the target's fields and the object's; none for a
 * kind that must keep its own order, or a hook whose target holds a Terraform value (no literal to hand on).
 */
export const teardownListing = (kind: string, hook: LocalExec | undefined) => {
  const variables = isVariables(hook?.environment) ? hook?.environment : undefined;
  if (hook === undefined || !tearsDown(kind) || variables?.[ENV.target] === undefined) return undefined;
  const shared = Object.fromEntries(
    [ENV.stack, ENV.target, ENV.targetLabel].flatMap((name) =>
      variables[name] === undefined ? [] : [[name, variables[name]]],
    ),
  );
  return { command: hook.command, shared, environment: variables };
};

/** Variables written out, not one expression or a token for them. */
const isVariables = (value: LocalExec['environment'] | undefined): value is Readonly<Record<string, string>> =>
  typeof value === 'object' && value !== null && Object.values(value).every((one) => typeof one === 'string');

/** A batch's own resources (its apply, its teardown): they wait for its lifecycles, and order no destroy. */
export const BATCH_RESOURCES = new WeakSet<TerraformResource>();

/** At most this many characters of objects in one variable: Linux takes 128 KiB, and jsonencode quotes each quote. */
const PART_BUDGET = 48 * 1024;
/** What a lifecycle's stored input may add to its estimate when it holds what the read found (a Terraform value). */
const FOUND_ALLOWANCE = 2048;

export class Teardown extends Construct {
  private readonly members: TeardownMember[] = [];

  constructor(
    scope: Construct,
    id: string,
    { label, command, shared }: { label: string; command: string; shared: Readonly<Record<string, string>> },
  ) {
    super(scope, id);
    const resource = new TerraformData(this, 'resource', {
      input: Lazy.anyValue({ produce: () => this.input() }),
      triggersReplace: undefined,
      localExec: {
        when: 'destroy',
        command: `${command} teardown`,
        environment: Lazy.anyValue({ produce: () => ({ ...shared, ...this.variables() }) }),
      },
    });
    resource.overrideLogicalId(`${label}_teardown`);
    BATCH_RESOURCES.add(resource);
  }

  /** Lists `member`, of a kind whose destroys may run together with others' (KINDS' `tearsDown`). */
  add(member: TeardownMember): void {
    this.members.push(member);
  }

  /** The listed objects in parts, each within PART_BUDGET as estimated at synth. */
  private parts(): TeardownMember[][] {
    const waited = waitedFor(TerraformStack.of(this));
    const parts: TeardownMember[][] = [];
    let size = PART_BUDGET;
    for (const member of this.members) {
      const { lifecycle, mayWaitFor } = member;
      const address = `terraform_data.${lifecycle.friendlyUniqueId}`;
      if ((lifecycle.dependsOn ?? []).some((on) => !mayWaitFor.includes(on)) || waited.has(address)) continue;
      const estimate = 2 * (JSON.stringify(fieldsOf(member)).length + lifecycleText(lifecycle)) + FOUND_ALLOWANCE;
      if (size + estimate > PART_BUDGET) parts.push([]);
      size = size + estimate > PART_BUDGET ? estimate : size + estimate;
      parts[parts.length - 1]?.push(member);
    }
    return parts;
  }

  /** The state's half: each part's lifecycles' stored inputs, read from them, as their hooks read `self.input`. */
  private input(): Record<string, Record<string, string>> {
    const lifecycles = (part: TeardownMember[]) =>
      Object.fromEntries(
        part.map(({ lifecycle: { friendlyUniqueId: id } }) => [id, `\${jsonencode(terraform_data.${id}.input)}`]),
      );
    return Object.fromEntries(this.parts().map((part, index) => [String(index), lifecycles(part)]));
  }

  /**
   * The configuration's half, as each object's hook has it at destroy (its kind, `adopt`, its declaration), beside
   * each part of the state's, read with lookup: a state written with fewer parts must not fail the destroy.
   */
  private variables(): Record<string, string> {
    return Object.fromEntries(
      this.parts().flatMap((part, index) => [
        [`${TEARDOWN_PREFIX}${index}`, `\${jsonencode(lookup(self.input, "${index}", {}))}`],
        [`${TEARDOWN_FIELDS_PREFIX}${index}`, JSON.stringify(Object.fromEntries(part.map(named)))],
      ]),
    );
  }
}

const fieldsOf = ({ environment }: TeardownMember): Record<string, string> =>
  Object.fromEntries(
    OBJECT_FIELDS.flatMap((name) => (environment[name] === undefined ? [] : [[name, environment[name]]])),
  );

const named = (member: TeardownMember): [string, Record<string, string>] => [
  member.lifecycle.friendlyUniqueId,
  fieldsOf(member),
];

/** The addresses some resource of the stack names in its `depends_on`, but a batch's own apply and teardown. */
const waitedFor = (stack: TerraformStack): Set<string> =>
  new Set(
    stack.node
      .findAll()
      .filter((c): c is TerraformResource => c instanceof TerraformResource && !BATCH_RESOURCES.has(c))
      .flatMap((resource) => resource.dependsOn ?? []),
  );

const lifecycleText = (lifecycle: TerraformData): number => JSON.stringify(lifecycle.input ?? '').length;
