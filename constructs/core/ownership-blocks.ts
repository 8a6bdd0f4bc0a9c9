/**
 * What a target batch declares once one of its objects keeps its ownership in the state (ownership.ts): the
 * read's `.found` groups as a text per name, which each lifecycle records at its creation, the read's `.absent`
 * names, and the apply's recheck of those (batch-recheck.ts), which such lifecycles depend on, so none records
 * as the stack's an object that appeared after the plan read it absent.
 */
import type { Construct } from 'constructs';
import { BATCH } from '../../src/core/protocol';
import { TerraformStack } from './cdk';
import { recheckProgram, recheckQuery } from './batch-entries';
import { ExternalRead } from './terraform-blocks';

/** Declares `local.<label>_found`, `local.<label>_absent` and `data.external.<label>_recheck`; returns its address. */
export const declareOwnershipBlocks = (
  batch: Construct,
  label: string,
  handler: string,
  read: ExternalRead,
): string => {
  const result = `data.external.${read.friendlyUniqueId}.result`;
  const groups = `jsondecode(lookup(${result}, "${BATCH.found}", "{}"))`;
  const stack = TerraformStack.of(batch);
  stack.addOverride(
    `locals.${label}_found`,
    `\${merge({}, [for text, names in ${groups} : { for name in names : name => text }]...)}`,
  );
  stack.addOverride(`locals.${label}_absent`, `\${lookup(${result}, "${BATCH.absent}", "")}`);
  const recheck = new ExternalRead(batch, 'recheck', {
    program: recheckProgram(label, handler),
    query: recheckQuery(label, read.friendlyUniqueId),
  });
  recheck.overrideLogicalId(`${label}_recheck`);
  return `data.external.${label}_recheck`;
};
