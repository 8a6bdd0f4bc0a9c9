/**
 * A batch's one check (target-batch.ts): its condition, its message (the read's summary, then the objects the apply
 * would refuse) and the message's last line, which promises convergence only when no object's kind decided the apply
 * will not converge it (Reading.converges). It promised it under lines saying the apply refuses their objects.
 */
import { BATCH } from '../../src/core/protocol';
import { Lazy, type TerraformStack } from './cdk';
import type { ExternalRead } from './terraform-blocks';

/** The message's last line when the apply converges every object it names. */
export const CONVERGES_FOOTER = '(read at plan time; apply converges it)';
/** The message's last line when the apply refuses or leaves some object it names, as its kind decided. */
export const UNLESS_FOOTER = '(read at plan time; apply converges it unless its line says otherwise)';

/** What the check reads of its batch, asked at synth: objects are added after the batch is made. */
export interface CheckedBatch {
  /** The Terraform name prefix of the batch. */
  readonly label: string;
  readonly read: ExternalRead;
  /** Whether some object may be refused (batch-entries.ts `refusable`): `local.<label>_refused` holds their lines. */
  mayRefuse(): boolean;
  /** How many objects the batch holds. */
  size(): number;
}

/**
 * Declares `check.<label>_in_sync`. Terraform re-evaluates checks after apply against the plan-time read, so the
 * message says when it was read. A check-scoped re-read would fix that, but Terraform then plans that read on every
 * run and no plan is ever empty (measured, terraform 1.11.4; terraform#36536).
 */
export const declareCheck = (stack: TerraformStack, batch: CheckedBatch): void => {
  stack.addOverride(`check.${batch.label}_in_sync`, {
    assert: [
      {
        condition: Lazy.stringValue({ produce: () => `\${${readInSync(batch)}${refusedTest(batch)}}` }),
        error_message: Lazy.stringValue({ produce: () => `\${${checkMessage(batch)}}\n\${${footer(batch)}}` }),
      },
    ],
  });
};

/**
 * The check's message: the read's summary (`k of n objects are not in sync:` and k lines), then the objects the apply
 * would refuse under a count of their own. The read cannot see the state that records them, so one object may be in
 * both lists; each list's count is its own lines' (issue 29: one header counted 1 over 6 lines, one object twice).
 */
const checkMessage = (batch: CheckedBatch): string => {
  const summary = batch.read.result(BATCH.summary);
  if (!batch.mayRefuse()) return summary;
  const refused = `local.${batch.label}_refused`;
  const header =
    `format("the apply will refuse %d of the %d objects, which existed before this stack declared them:", ` +
    `length(split("\\n", ${refused})), ${batch.size()})`;
  const refusals = `${refused} == "" ? "" : join("\\n", [${header}, ${refused}])`;
  return `join("\\n", compact([${readInSync(batch)} ? "" : ${summary}, ${refusals}]))`;
};

/**
 * The last line: the read's `.converges` (no drifted object's kind decided the apply will not converge it), read
 * once per target (a lookup per object costs the plan: bench/HISTORY.md, Plans), and no refused object, whose
 * lines say it will.
 */
const footer = (batch: CheckedBatch): string => {
  const converges = `lookup(data.external.${batch.read.friendlyUniqueId}.result, "${BATCH.converges}", "false")`;
  const [converging, unless] = [CONVERGES_FOOTER, UNLESS_FOOTER].map((text) => JSON.stringify(text));
  return `${converges} == "true"${refusedTest(batch)} ? ${converging} : ${unless}`;
};

const readInSync = (batch: CheckedBatch): string => `${batch.read.result(BATCH.inSync)} == "true"`;

/** ` && local.<label>_refused == ""` when some object may be refused, else nothing. */
const refusedTest = (batch: CheckedBatch): string =>
  batch.mayRefuse() ? ` && local.${batch.label}_refused == ""` : '';
