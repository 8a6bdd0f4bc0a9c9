/**
 * What discover found, as construct declarations: plain data between the readers and the code
 * writer, so what is declared is decided (and tested) apart from how it is written. A value is
 * data, a reference to another declaration, or the name of a variable that holds a secret.
 */
import { isRecord } from '../core/records';

/** The constructs a discovered stack declares. */
export type ConstructName =
  | 'ProxmoxCluster'
  | 'ProxmoxMetricServer'
  | 'ProxmoxNetworkInterface'
  | 'SshHost'
  | 'SystemdUnit'
  | 'SystemdUnitInstance'
  | 'SystemdDropIn'
  | 'KubeCluster'
  | 'KubeRepo';

/** Another declaration of the stack, by its key: written as that construct's variable. */
export class Ref {
  constructor(readonly key: string) {}
}

/** The name of an environment variable that holds a secret discover never reads or writes, and why. */
export class EnvName {
  constructor(
    readonly name: string,
    readonly note: string,
  ) {}
}

export type Value = string | number | boolean | Ref | EnvName | readonly Value[] | { readonly [key: string]: Value };

/** Whether `value` is a list of values: `Array.isArray` alone leaves a readonly list in the other branch. */
export const isList = (value: unknown): value is readonly Value[] => Array.isArray(value) && value.every(isValue);

/** Whether `value` (read from a target: anything) is a value a stack states: checked down to every leaf. */
export const isValue = (value: unknown): value is Value =>
  ['string', 'number', 'boolean'].includes(typeof value) ||
  value instanceof Ref ||
  value instanceof EnvName ||
  isList(value) ||
  (isRecord(value) && Object.values(value).every(isValue));

export interface Declaration {
  /** Unique in the estate: what a `Ref` names, e.g. `unit:probe@.service`. */
  readonly key: string;
  readonly construct: ConstructName;
  /** The construct id wanted; the writer makes it valid and unique. */
  readonly id: string;
  readonly props: Readonly<Record<string, Value>>;
  /** One line said above the construct (why a prop is as it is). */
  readonly note?: string;
}

/**
 * Reasons many objects share, said once above them in the summary: `managed`, a cdktf-homelab stack's
 * mark is on it (a second stack adopting it would fight the first); `management`, it carries a PVE
 * node's own address (a change to it can cut the node off).
 */
export type LeftOutGroup = 'managed' | 'management';

/** An object read but not declared, and why: printed in the summary, never silently dropped. */
export interface Skipped {
  readonly what: string;
  readonly why: string;
  readonly group?: LeftOutGroup;
}

/**
 * Which stack a left-out object's mark names, said after the mark: another than the one discover writes
 * (`stackId`), or that one (its own app declares it already); nothing for a mark naming none (an earlier version's).
 */
export const markedBy = (mark: string | undefined, stackId: string | undefined): string => {
  if (mark === undefined) return '';
  if (mark === stackId) return `: marked by this stack "${mark}" already`;
  return `: marked by stack "${mark}"${stackId === undefined ? '' : `, not this stack "${stackId}"`}`;
};

/** What one domain's reading turns into. */
export interface Discovered {
  readonly declarations: readonly Declaration[];
  readonly skipped: readonly Skipped[];
  /** What the reading could not tell, said in the summary (a limit, not an object). */
  readonly notes?: readonly string[];
}

/** Every object construct is declared with `adopt: true`: it exists already, made by someone else. */
export const ADOPT = { adopt: true } as const;

/** Props without the entries left undefined, so a default stays a default. */
export const defined = (props: Readonly<Record<string, Value | undefined>>): Record<string, Value> =>
  Object.fromEntries(Object.entries(props).filter((entry): entry is [string, Value] => entry[1] !== undefined));
