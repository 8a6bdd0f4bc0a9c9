/**
 * A target's teardown: the destroy hook of its batch apply, which waits for every lifecycle of the target, so
 * Terraform destroys it before any of them. The hook removes the listed objects in one run when Terraform destroys the
 * whole state (src/core/destroy-relay/teardown.ts) and each object's own hook then only prints its outcome. Without
 * it, a destroy of N objects took a run per Terraform slot: 23 runs for 200 units (issue 30).
 *
 * A destroy-time hook reads nothing but its own resource, so the objects travel in the configuration: each one's
 * stored input (a literal at synth), kind, `adopt` and declaration, as its own hook has them. The apply's input holds,
 * per part, the sha256 of those inputs as the state holds them, read from the lifecycles: a part whose code no longer
 * matches the state is left to its hooks. One line per part in a plan; the apply ignores changes to its input, so a
 * stack an earlier version applied plans nothing new. Listed are the objects of kinds whose destroys may run together
 * (KINDS' `tearsDown`) whose lifecycle input is a literal and which neither wait for nor are waited for by another
 * resource: Terraform orders those, and the teardown would not.
 */
import { tearsDown } from '../../src/core/registry';
import { ENV, OBJECT_FIELDS, TEARDOWN_FIELDS_PREFIX, TEARDOWN_PREFIX } from '../../src/core/protocol';
import { TerraformResource, TerraformStack } from './cdk';
import type { LocalExec, TerraformData } from './terraform-blocks';

/** What one object's lifecycle brings: its resource, its stored input and its destroy hook's variables. */
export interface TeardownMember {
  readonly lifecycle: TerraformData;
  readonly input: string;
  readonly environment: Readonly<Record<string, string>>;
  /** What the lifecycle may wait for and still be listed: its batch's recheck, which no destroy orders. */
  readonly mayWaitFor: readonly string[];
}

/**
 * What the teardown takes of an object: its hook's program, the target's fields and the object's, its lifecycle's
 * stored `input`; none for a kind that must keep its own order, or where the target or the input holds a Terraform
 * value (no literal to hand on: a lifecycle that records what the read found, as a metric server's does).
 */
export const teardownListing = (kind: string, hook: LocalExec | undefined, input: unknown) => {
  const fields = isVariables(hook?.environment) ? hook?.environment : undefined;
  if (hook === undefined || !tearsDown(kind) || fields?.[ENV.target] === undefined) return undefined;
  if (typeof input !== 'string' || input.includes('${')) return undefined;
  const shared = Object.fromEntries(
    [ENV.stack, ENV.target, ENV.targetLabel].flatMap((name) =>
      fields[name] === undefined ? [] : [[name, fields[name]]],
    ),
  );
  return { interpreter: hook.interpreter, shared, environment: fields, input };
};

/** Variables written out, not one expression or a token for them. */
const isVariables = (value: LocalExec['environment'] | undefined): value is Readonly<Record<string, string>> =>
  typeof value === 'object' && value !== null && Object.values(value).every((one) => typeof one === 'string');

/** The batches' apply resources: each waits for its lifecycles, and orders no destroy of them. */
export const BATCH_RESOURCES = new WeakSet<TerraformResource>();

/** At most this many characters of objects in one variable, estimated twice their JSON: Linux takes 128 KiB. */
const PART_BUDGET = 96 * 1024;

/**
 * A target's teardown on its batch's apply resource: its parts' digests in the apply's input (which gains them at the
 * apply's next replacement after an upgrade; till then each hook destroys), its hook among the apply's provisioners.
 */
export class Teardown {
  private readonly members: TeardownMember[] = [];

  constructor(
    private readonly stack: TerraformStack,
    private readonly listing: {
      readonly interpreter: LocalExec['interpreter'];
      readonly shared: Readonly<Record<string, string>>;
    },
  ) {}

  /** Lists `member`, of a kind whose destroys may run together with others' (KINDS' `tearsDown`). */
  add(member: TeardownMember): void {
    this.members.push(member);
  }

  /** The apply's input keys: per part, the sha256 of its lifecycles' stored inputs, one a line, read from the state. */
  input(): Record<string, string> {
    const inputs = (part: TeardownMember[]) =>
      part.map(({ lifecycle: { friendlyUniqueId: id } }) => `terraform_data.${id}.input`).join(', ');
    return Object.fromEntries(
      this.parts().map((part, index) => [`${INPUT_KEY}${index}`, `\${sha256(join("\\n", [${inputs(part)}]))}`]),
    );
  }

  /** The apply's destroy hook: the sh hook's teardown mode; none while no object is listed. */
  hook(): LocalExec | undefined {
    const parts = this.parts();
    if (parts.length === 0) return undefined;
    const environment = { ...this.listing.shared, ...variables(parts) };
    return { when: 'destroy', interpreter: this.listing.interpreter, command: 'teardown', environment };
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
      const estimate = 2 * JSON.stringify(listed(member)).length;
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
 * Per part, the digest the state holds (read with lookup: a state an earlier version wrote has none, and its parts are
 * left to their hooks) and the objects as the configuration has them, by lifecycle name, in the digest's order.
 */
const variables = (parts: TeardownMember[][]): Record<string, string> =>
  Object.fromEntries(
    parts.flatMap((part, index) => [
      [`${TEARDOWN_PREFIX}${index}`, `\${lookup(self.input, "${INPUT_KEY}${index}", "")}`],
      [`${TEARDOWN_FIELDS_PREFIX}${index}`, JSON.stringify(Object.fromEntries(part.map(named)))],
    ]),
  );

/** One object as the teardown reads it: its lifecycle's stored input, and its hook's own fields. */
const listed = ({ input, environment }: TeardownMember) => ({
  input,
  fields: Object.fromEntries(
    OBJECT_FIELDS.flatMap((name) => (environment[name] === undefined ? [] : [[name, environment[name]]])),
  ),
});

const named = (member: TeardownMember) => [member.lifecycle.friendlyUniqueId, listed(member)] as const;

/** The addresses some resource of the stack names in its `depends_on`, but the batches' applies. */
const waitedFor = (stack: TerraformStack): Set<string> =>
  new Set(
    stack.node
      .findAll()
      .filter((c): c is TerraformResource => c instanceof TerraformResource && !BATCH_RESOURCES.has(c))
      .flatMap((resource) => resource.dependsOn ?? []),
  );
