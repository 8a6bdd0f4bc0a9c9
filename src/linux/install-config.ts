/**
 * A unit's installation config as `systemctl enable` reads it: each [Install] key's words once its file and then its
 * drop-ins are read (install-settings.ts parses a file), from text that may hold Terraform values. One reading for
 * what can be enabled (unit-enable.ts, a unit or an instance; template-enable.ts, a template) and the defaults.
 */
import { type InstallKey, type InstallSetting, installSettings, installValues } from './install-settings';
import { type Known, type UnitContent, unitText } from './render-unit';

/**
 * A drop-in that changes the unit, by its file name: systemd reads a unit's [Install] and then its drop-ins' in
 * the order of their file names, a template's and its instance's together (measured, systemd 252).
 */
export interface InstallDropIn {
  readonly name: string;
  readonly content: UnitContent;
}

/**
 * Whether `content`, with `dropIns` read after it, holds installation config: true or false from its known text,
 * undefined when a section name or a key is a Terraform value (sections only: in text a value stands only after
 * a directive's `=`, which `valuePlaceProblems` holds it to, so text's headers and keys are always known). A value
 * in a known [Install] line counts as a setting: synth judges the text it knows, and refuses only what no value
 * can change. An empty `WantedBy=` resets what came before it, in a drop-in too (measured, systemd 252).
 * `DefaultInstance=` alone is none: a template with only it, and its instances, are `static` and enable links
 * nothing (measured, systemd 252; the plan said an instance whose drop-in emptied its template's WantedBy= would
 * be enabled again, and the apply enabled, linked nothing and failed its read-back).
 */
export const installConfigOf = (
  content: UnitContent,
  known: Known = (text) => text,
  dropIns: readonly InstallDropIn[] = [],
  managerVersion?: number,
): boolean | undefined => {
  const values = installValuesOf(content, known, dropIns);
  const ignored = (key: string) => key === 'DefaultInstance' || (key === 'UpheldBy' && !readsUpheldBy(managerVersion));
  return values && [...values].some(([key, words]) => !ignored(key) && words.length > 0);
};

/** systemd 254 made UpheldBy= an [Install] setting (PR 27638); 252's enable ignores it (measured, unit-install.ts). */
export const UPHELD_BY_SINCE = 254;

/**
 * Whether enable on a host of `managerVersion` reads UpheldBy=: a host whose version the read did not read, and synth,
 * which knows no host, count it (measured, systemd 252: a unit with UpheldBy= alone is `static`, enable links nothing).
 */
export const readsUpheldBy = (managerVersion: number | undefined): boolean =>
  managerVersion === undefined || managerVersion >= UPHELD_BY_SINCE;

/** Each [Install] key's words once `content` and then `dropIns` are read; undefined as `installConfigOf` says. */
export const installValuesOf = (
  content: UnitContent,
  known: Known = (text) => text,
  dropIns: readonly InstallDropIn[] = [],
): Map<InstallKey, string[]> | undefined => {
  // By file name, `.conf` included, as systemd sorts them: `a-b.conf` comes before `a.conf`.
  const file = ({ name }: InstallDropIn) => `${name}.conf`;
  const ordered = [...dropIns].sort((a, b) => (file(a) < file(b) ? -1 : file(a) > file(b) ? 1 : 0));
  const files = [content, ...ordered.map((dropIn) => dropIn.content)].map((text) => settingsOf(text, known));
  if (files.some((settings) => settings === undefined)) return undefined;
  return installValues(files.flatMap((settings) => settings ?? []));
};

/**
 * The [Install] settings of one file (install-settings.ts reads them); undefined when a section name or key is
 * not known. A Terraform value stands as `x`: it holds no line end nor a trailing backslash (render-unit.ts).
 */
const settingsOf = (content: UnitContent, known: Known): InstallSetting[] | undefined => {
  if (typeof content === 'string') {
    const text = known(content);
    return text === undefined ? undefined : installSettings(text);
  }
  if ('pieces' in content)
    return installSettings(content.pieces.map((piece, i) => (i % 2 === 0 ? piece : 'x')).join(''));
  const plain = (text: string) => known(text) === text;
  if (content.some(({ name, lines }) => !plain(name) || lines.some(([key]) => !plain(key)))) return undefined;
  const sections = content.map(({ name, lines }) => ({
    name,
    lines: lines.map(([key, value]) => [key, plain(value) ? value : 'x'] as const),
  }));
  return installSettings(unitText(sections));
};
