/**
 * Where a drop-in lives: `<directory>/<unit>.d/<name>.conf`. A leaf of its own, so the records and intents
 * (unit-intent.ts, unit-ownership.ts) name a drop-in's place without importing its kind, which imports them
 * back through the unit's live state (a circle of five files, farm-studio look at e21affe).
 */

/** What places a drop-in: its unit directory, its unit and its name. */
export interface DropInPlace {
  readonly directory: string;
  readonly unit: string;
  readonly name: string;
}

export const dropInDirectory = (dropIn: DropInPlace): string => `${dropIn.directory}/${dropIn.unit}.d`;
export const dropInPath = (dropIn: DropInPlace): string => `${dropInDirectory(dropIn)}/${dropIn.name}.conf`;
