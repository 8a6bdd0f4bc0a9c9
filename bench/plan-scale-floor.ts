/**
 * The floor under issue 30 item 1's plan ratio: the managed stack reduced to its lifecycles (no read, no batch
 * apply, no locals, no check), planned against the same applied state beside the real plan and the bare one.
 * While each object keeps a resource of its own (its destroy named in the plan and failing alone), a plan costs
 * at least its lifecycles; when this column alone is near or past the 2x target, only fewer resources per object
 * could meet it, and a faster read or fewer expressions cannot (reasoned; the column measures it).
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isRecord } from '../src/core/records';
import type { CdktfProject } from '../test/support/cdktf-project';

type Json = Readonly<Record<string, unknown>>;

const LIFECYCLE = /_lifecycle$/;

/**
 * One lifecycle as the stack declares it, with what it found (before the newline of its input: recordedInput in
 * constructs/core/object-address.ts) replaced by "" (the local it read is gone).
 */
const alone = (resource: unknown): unknown => {
  if (!isRecord(resource)) return resource;
  const { depends_on: dependsOn, input, ...rest } = resource;
  const edges = Array.isArray(dependsOn) ? dependsOn.filter((edge) => LIFECYCLE.test(String(edge))) : [];
  const kept = typeof input === 'string' ? input.replace(/^[\s\S]*\n/, '\n') : input;
  return { ...rest, input: kept, ...(edges.length > 0 ? { depends_on: edges } : {}) };
};

/** The synthesized stack's lifecycles alone: everything else, the backend and the providers dropped. */
export const lifecyclesOnly = (stack: Json): Json => {
  const resources =
    isRecord(stack.resource) && isRecord(stack.resource.terraform_data) ? stack.resource.terraform_data : {};
  const lifecycles = Object.entries(resources).filter(([name]) => LIFECYCLE.test(name));
  return {
    terraform: {},
    resource: { terraform_data: Object.fromEntries(lifecycles.map(([name, resource]) => [name, alone(resource)])) },
  };
};

/**
 * `floor`'s stack made the lifecycles of `managed`'s applied stack, with a copy of its state; the apply drops the
 * read and the batch apply from that copy (neither has a destroy hook), so the floor's plans are clean.
 */
export const standUpFloor = async (managed: CdktfProject, floor: CdktfProject): Promise<void> => {
  const synthesized = JSON.parse(readFileSync(join(managed.stackDir, 'cdk.tf.json'), 'utf8'));
  mkdirSync(floor.stackDir, { recursive: true });
  writeFileSync(
    join(floor.stackDir, 'cdk.tf.json'),
    JSON.stringify(lifecyclesOnly(isRecord(synthesized) ? synthesized : {})),
  );
  copyFileSync(managed.statePath, join(floor.stackDir, 'terraform.tfstate'));
  await floor.must('floor init', floor.terraform('init', '-no-color'));
  await floor.must('floor apply', floor.terraform('apply', '-auto-approve', '-no-color'));
};
