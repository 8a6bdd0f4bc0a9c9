/**
 * Intent first, effect second, record last (DESIGN, Interruption) for units, instances and drop-ins.
 * Before an apply's first effect on an object it leaves an intent on the host, under
 * /var/lib/cdktf-homelab/intents: written by root alone, readable like the records (a read login's plan
 * must see it), holding nothing secret; systemd never reads it. An apply killed before it read the object
 * back leaves it, and the read then reports the object as drift in words and as the stack's, never
 * as foreign. The record written last says which content the running process was started with.
 * Both name the stack that wrote them (`stack=<id>`, issue 27): the mark is per stack, not per host.
 * The root helper writes both (root-helper.ts), from the object and the text this module makes.
 */
import { STACK_ID } from '../core/stack-id';
import { dropInPath, type DropInPlace } from './drop-in-path';
import type { UnitObject } from './root-helper';
import { INTENT_DIR } from './state-paths';

/** A unit's or instance's intent. */
export const unitIntentPath = (unit: { readonly name: string }): string => `${INTENT_DIR}/${unit.name}`;

/** A drop-in's intent: the drop-in's own path below the directory's `drop-ins`. */
export const dropInIntentPath = (dropIn: DropInPlace): string => `${INTENT_DIR}/drop-ins${dropInPath(dropIn)}`;

/** A template's instances by where its links for them are: under /etc, and under /run (until reboot). */
export interface Relinked {
  readonly etc: readonly string[];
  readonly run: readonly string[];
}

/** What an apply was about to do to one object, as it wrote it before its first effect. */
export interface UnitIntent {
  /** When it was written, in Unix seconds by the host's clock. */
  readonly since: number;
  /** sha256 of the content it was about to write; undefined for an instance (its template's file). */
  readonly sha256?: string;
  /** Whether the unit was to be started or restarted with that content. */
  readonly restart: boolean;
  /** The stack whose apply wrote it; undefined for an earlier version's, which named none. */
  readonly stack?: string;
  /**
   * A template's: the instances the stack does not declare that its disable by its name unlinks and the apply then
   * links again (unit-template-disable.ts `linkedAgain`). An apply stopped between the two leaves them unlinked and
   * no link says they were there: the next apply links them again from here. Undefined where none.
   */
  readonly relink?: Relinked;
}

/** One object's intent as the apply writes it: the helper makes its path from `object` (root-helper.ts). */
export interface IntentEntry {
  readonly object: UnitObject;
  readonly unit: string;
  readonly sha256?: string;
  readonly restart: boolean;
  /** The stack the apply works for (a by-hand apply keeps the one the object's mark named). */
  readonly stack?: string;
  /** As `UnitIntent.relink`. */
  readonly relink?: Relinked;
}

const WORD = 'cdktf-homelab-intent';

/** The word that names the stack in an intent and a record; its value is one word by its rule (stack-id.ts). */
const STACK_WORD = 'stack=';

/** What a mark naming a stack by a value the rule refuses (edited by hand) is read as: no stack's name. */
export const NOT_A_STACK = '(not a stack identity)';

/** The stack a `stack=<value>` word names: a value the rule refuses counts as another stack (refused, never taken). */
const stackNamed = (value: string): string => (STACK_ID.test(value) ? value : NOT_A_STACK);

/** `stack=<id>` after the rest of a line, or nothing. */
const stackSuffix = (stack: string | undefined): string => (stack === undefined ? '' : ` ${STACK_WORD}${stack}`);

/** The word of each instance to link again: `relink=etc:<name>` or `relink=run:<name>` (the helper's word rule). */
const RELINK_WORD = 'relink=';
const relinkWords = ({ etc, run }: Relinked = { etc: [], run: [] }): string =>
  [...etc.map((name) => `etc:${name}`), ...run.map((name) => `run:${name}`)]
    .map((word) => ` ${RELINK_WORD}${word}`)
    .join('');

/**
 * The line of an intent, after its `since=<seconds>` which the host's clock fills in. An earlier version's read keys
 * each word by what comes before its `=`, so it reads this one's words as before and passes the relink words over.
 */
export const intentRest = ({ unit, sha256, restart, stack, relink }: Omit<IntentEntry, 'object'>): string =>
  `sha256=${sha256 ?? '-'} restart=${restart ? 'pending' : 'no'} unit=${unit}` +
  `${stackSuffix(stack)}${relinkWords(relink)}`;

/**
 * The relink words of an intent's `words`; unit-template-disable.ts `stoppedRelinks` keeps only the template's own
 * instances among them.
 */
const relinkOf = (words: readonly string[]): Relinked | undefined => {
  const named = (root: string) =>
    words.flatMap((word) => (word.startsWith(`${RELINK_WORD}${root}:`) ? [word.slice(RELINK_WORD.length + 4)] : []));
  const [etc, run] = [named('etc'), named('run')];
  return etc.length + run.length === 0 ? undefined : { etc, run };
};

/** An intent's text, as the read returns it; undefined when it is not one (any file there still proves it). */
export const parseIntent = (text: string): UnitIntent | undefined => {
  const words = text.trim().split(/\s+/);
  const fields = new Map(
    words
      .filter((word) => !word.startsWith(RELINK_WORD))
      .map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]),
  );
  const relink = relinkOf(words);
  const since = Number(fields.get('since'));
  if (!text.startsWith(WORD) || !Number.isFinite(since)) return undefined;
  const sha256 = fields.get('sha256');
  const stack = fields.get('stack');
  return {
    since,
    restart: fields.get('restart') === 'pending',
    ...(sha256 !== undefined && /^[0-9a-f]{64}$/.test(sha256) ? { sha256 } : {}),
    ...(stack === undefined ? {} : { stack: stackNamed(stack) }),
    ...(relink === undefined ? {} : { relink }),
  };
};

/** One record an apply writes last: the object it is of and its text (root-helper.ts writes it 0644). */
export interface RecordEntry {
  readonly object: UnitObject;
  readonly text: string;
}

/** What the record says the running process was started with. */
export interface StartedWith {
  /** `content` of the unit (unit-read.ts) when the apply read it back. */
  readonly content: string;
  /** Its InvocationID then. */
  readonly invocation: string;
}

/**
 * A record's text: its first word (the restartOn digest of a unit, a drop-in's mark), then what the
 * running process was started with, then `stack=<id>`, the stack that wrote it. Records of earlier
 * versions hold the first word alone, or with what the process was started with, and name no stack.
 * The stack word comes last, so an earlier version reading this one's record still finds the rest.
 */
export const recordText = (first: string, started?: Partial<StartedWith>, stack?: string): string =>
  (started?.content === undefined || started.invocation === undefined
    ? first
    : `${first} ${started.content} ${started.invocation}`) + stackSuffix(stack);

/** A parsed record: its first word, what the process was started with, the stack that wrote it. */
export interface ParsedRecord {
  readonly first: string;
  readonly startedWith?: StartedWith;
  /** Undefined for an earlier version's record: it counts as the reading stack's (stack-id.ts). */
  readonly stack?: string;
}

/** A record's text split into its first word, what the process was started with and its stack, when there. */
export const parseRecord = (text: string): ParsedRecord => {
  const words = text.trim().split(/\s+/);
  const stackWord = words.find((word, index) => index > 0 && word.startsWith(STACK_WORD));
  const [first = '', content, invocation] = words.filter((word) => word !== stackWord);
  return {
    first,
    ...(content === undefined || invocation === undefined ? {} : { startedWith: { content, invocation } }),
    ...(stackWord === undefined ? {} : { stack: stackNamed(stackWord.slice(STACK_WORD.length)) }),
  };
};
