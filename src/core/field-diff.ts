/**
 * What differs between the live object and the spec, field by field: the shape the protocol
 * carries and the printing bounds, each importing it from here rather than from the other.
 */

/** One differing field. `null` stands for "unset". */
export interface FieldChange {
  readonly live: unknown;
  readonly want: unknown;
}

export type FieldDiff = Readonly<Record<string, FieldChange>>;
