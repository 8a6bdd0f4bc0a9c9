/**
 * The props that say what becomes of an object and whose it is: synth decides from each which Terraform it writes
 * (an object or its removal, what the apply may take over), so each must be known at synth. An IResolvable is
 * truthy: taken as it is, a variable set to false would have retired the object or adopted it.
 */
import { boolean } from './rules';

/** Each prop's rule and what synth decides from it (`atSynth`); the doc comments are the constructs'. */
export const OWNER_FIELDS = {
  retired: { rule: boolean, atSynth: 'synth declares its removal instead of the object' },
  forget: { rule: boolean, atSynth: 'synth drops the object from the state instead of declaring it' },
  adopt: { rule: boolean, atSynth: 'synth decides from it what the apply may take over and what destroy may remove' },
  takeOver: {
    rule: boolean,
    atSynth: 'synth decides from it whether the apply may take the object from another stack',
  },
} as const;
