/**
 * A target's teardown: the destroy hook of its batch apply, whose input lists its objects, each lifecycle's stored
 * input read from that lifecycle; Terraform destroys the apply before any of them. The hook removes them all in one
 * run when Terraform destroys the whole state (src/core/destroy-relay/teardown.ts) and each object's own hook then
 * only prints its outcome. Without it, a destroy of N objects took a run per Terraform slot:
 * 23 runs for 200 units (issue 30). Listed are the objects of kinds whose destroys may run together (KINDS'
 * `tearsDown`) whose lifecycle neither waits for nor is waited for by another resource: Terraform orders those, and
 * the teardown would not.
 */
import { OBJECT_FIELDS, TEARDOWN_FIELDS_PREFIX, TEARDOWN_PREFIX } from '../../src/core/destroy-relay/teardown';
import { tearsDown } from '../../src/core/registry';
import { ENV } from '../../src/core/protocol';
import { TerraformResource, TerraformStack } from './cdk';
import type { LocalExec, TerraformData } from './terraform-blocks';

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
  const fields = isVariables(hook?.environment) ? hook?.environment : undefined;
  if (hook === undefined || !tearsDown(kind) || fields?.[ENV.target] === undefined) return undefined;
  const shared = Object.fromEntries(
    [ENV.stack, ENV.target, ENV.targetLabel].flatMap((name) =>
      fields[name] === undefined ? [] : [[name, fields[name]]],
    ),
  );
  return { command: hook.command, shared, environment: fields };
};

/** Variables written out, not one expression or a token for them. */
const isVariables = (value: LocalExec['environment'] | undefined): value is Readonly<Record<string, string>> =>
  typeof value === 'object' && value !== null && Object.values(value).every((one) => typeof one === 'string');

/** The batches' apply resources: each waits for its lifecycles, and orders no destroy of them. */
export const BATCH_RESOURCES = new WeakSet<TerraformResource>();

/** At most this many characters of objects in one variable: Linux takes 128 KiB, and jsonencode quotes each quote. */
const PART_BUDGET = 48 * 1024;
/** What a lifecycle's stored input may add to its estimate when it holds what the read found (a Terraform value). */
const FOUND_ALLOWANCE = 2048;

/**
 * A target's teardown, riding on its batch's apply resource, which already waits for every lifecycle of the target: so
 * Terraform destroys it first, and a stack made by an earlier version plans no new resource (its stored input, which
 * Terraform ignores the changes of, gains the parts at the apply's next replacement; till then each hook destroys).
 */
export class Teardown {
  private readonly members: TeardownMember[] = [];

  constructor(
    private readonly stack: TerraformStack,
    private readonly listing: { readonly command: string; readonly shared: Readonly<Record<string, string>> },
  ) {}

  /** Lists `member`, of a kind whose destroys may run together with others' (KINDS' `tearsDown`). */
  add(member: TeardownMember): void {
    this.members.push(member);
  }

  /** The state's half, as keys of the apply's input: each part's lifecycles' stored inputs, read from them. */
  input(): Record<string, Record<string, string>> {
    const lifecycles = (part: TeardownMember[]) =>
      Object.fromEntries(
        part.map(({ lifecycle: { friendlyUniqueId: id } }) => [id, `\${jsonencode(terraform_data.${id}.input)}`]),
      );
    return Object.fromEntries(this.parts().map((part, index) => [`${INPUT_KEY}${index}`, lifecycles(part)]));
  }

  /** The apply's destroy hook: the sh hook's teardown mode; none while no object is listed. */
  hook(): LocalExec | undefined {
    const parts = this.parts();
    if (parts.length === 0) return undefined;
    const environment = { ...this.listing.shared, ...variables(parts) };
    return { when: 'destroy', command: `${this.listing.command} teardown`, environment };
  }

  /** The listed objects in parts, each within PART_BUDGET as estimated at synth. */
  private parts(): TeardownMember[][] {
    const waited = waitedFor(this.stack);
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
}

/** The apply's input key of each part of the state's half. */
const INPUT_KEY = 'teardown_';

/**
 * Each part of the state's half read with lookup (a state written with fewer parts, or by an earlier version, must
 * not fail the destroy), beside the configuration's half: each object's fields as its own hook has them at destroy.
 */
const variables = (parts: TeardownMember[][]): Record<string, string> =>
  Object.fromEntries(
    parts.flatMap((part, index) => [
      [`${TEARDOWN_PREFIX}${index}`, `\${jsonencode(lookup(self.input, "${INPUT_KEY}${index}", {}))}`],
      [`${TEARDOWN_FIELDS_PREFIX}${index}`, JSON.stringify(Object.fromEntries(part.map(named)))],
    ]),
  );

const fieldsOf = ({ environment }: TeardownMember): Record<string, string> =>
  Object.fromEntries(
    OBJECT_FIELDS.flatMap((name) => (environment[name] === undefined ? [] : [[name, environment[name]]])),
  );

const named = (member: TeardownMember): [string, Record<string, string>] => [
  member.lifecycle.friendlyUniqueId,
  fieldsOf(member),
];

/** The addresses some resource of the stack names in its `depends_on`, but the batches' applies. */
const waitedFor = (stack: TerraformStack): Set<string> =>
  new Set(
    stack.node
      .findAll()
      .filter((c): c is TerraformResource => c instanceof TerraformResource && !BATCH_RESOURCES.has(c))
      .flatMap((resource) => resource.dependsOn ?? []),
  );

const lifecycleText = (lifecycle: TerraformData): number => JSON.stringify(lifecycle.input ?? '').length;
