/**
 * Whether a unit can be enabled at all: `systemctl enable` makes links only from [Install]'s WantedBy=,
 * RequiredBy=, Alias= and Also= (UpheldBy= from 254, DefaultInstance= for a template). Without them it only
 * warns and systemd calls the unit `static`, so a unit (or a template's instance) declared enabled planned an
 * enable that the apply never made, and the next plan was clean (measured, systemd 252). One rule, for synth,
 * the handler's spec boundary and its apply alike.
 */
import { broken, type Problem } from '../core/rules';
import type { Known, UnitContent } from './render-unit';

/** The [Install] settings that make `systemctl enable` link a unit (systemd 252 install.c, and 254's UpheldBy=). */
const INSTALL_CONFIG = /^\s*(WantedBy|RequiredBy|UpheldBy|Alias|Also|DefaultInstance)\s*=/;
const HEADER = /^\s*\[([^\]]*)\]\s*$/;

/** What such a unit's [Install] lacks, in the words of systemd's warning. */
const NAMES_NONE = 'names no WantedBy=, RequiredBy=, Alias= or Also=';

/** The rule, for a unit and for an instance (whose [Install] is its template's). */
export const ENABLE_RULE = {
  unit: `false for a unit whose [Install] ${NAMES_NONE}`,
  instance: `false for an instance whose template's [Install] ${NAMES_NONE}`,
} as const;

/** Why, in systemd's terms: what the message says after the rule. */
const WHY = 'systemctl enable makes no link for it: systemd calls it static';

/**
 * Whether `content` holds installation config: true or false from its known text, undefined when a section name
 * or a key is a Terraform value (sections only: in text a value stands only after a directive's `=`, which
 * `valuePlaceProblems` holds it to, so text's headers and keys are always known). A value in a known [Install]
 * line counts as a setting: synth judges the text it knows, and refuses only what no value can change.
 */
export const installConfigOf = (content: UnitContent, known: Known = (text) => text): boolean | undefined => {
  if (typeof content === 'string') {
    const text = known(content);
    return text === undefined ? undefined : textHasConfig(text);
  }
  if ('pieces' in content) return textHasConfig(content.pieces.map((piece, i) => (i % 2 === 0 ? piece : 'x')).join(''));
  const plain = (text: string) => known(text) === text;
  if (content.some(({ name }) => !plain(name))) return undefined;
  const lines = content.filter(({ name }) => name === 'Install').flatMap(({ lines }) => lines);
  if (lines.some(([key]) => plain(key) && INSTALL_CONFIG.test(`${key}=`))) return true;
  return lines.some(([key]) => !plain(key)) ? undefined : false;
};

const textHasConfig = (text: string): boolean => {
  let install = false;
  for (const line of text.split(/\r\n|[\n\r]/)) {
    const header = HEADER.exec(line);
    if (header !== null) install = header[1] === 'Install';
    else if (install && INSTALL_CONFIG.test(line)) return true;
  }
  return false;
};

/** The default of `enabled`: true unless the text is known to hold no installation config. */
export const enabledByDefault = (content: UnitContent, known?: Known): boolean =>
  installConfigOf(content, known) !== false;

/** `enabled: true` for a unit (or an instance, of its template's `content`) that enable cannot link. */
export const enabledProblems = (
  sort: keyof typeof ENABLE_RULE,
  enabled: unknown,
  content: UnitContent,
  known?: Known,
): Problem[] => (enabled === true && installConfigOf(content, known) === false ? [enabledProblem(sort)] : []);

/** The problem, in the words synth, the spec boundary, the read and the apply share. */
export const enabledProblem = (sort: keyof typeof ENABLE_RULE): Problem => {
  const { prop, says } = broken('enabled', ENABLE_RULE[sort], true);
  return { prop, says: `${says} (${WHY})` };
};

/**
 * The read's words for an instance declared enabled whose template on the host systemd calls `static` (no
 * [Install] to enable, its drop-ins' included); undefined otherwise. The apply refuses it with the same words.
 */
export const staticTemplateWords = (
  spec: { readonly enabled: boolean; readonly template?: string },
  unitFileState: string,
): string | undefined =>
  spec.enabled && spec.template !== undefined && unitFileState === 'static'
    ? `static: its template ${spec.template} on the host ${NAMES_NONE} in [Install], so it cannot be enabled`
    : undefined;

/**
 * Why the apply cannot enable an instance declared enabled: its template's text the apply leaves (the batch's,
 * when it declares the template) has no installation config, or, for a template the batch does not declare,
 * systemd calls it static on the host (`staticTemplateWords`); undefined when it can.
 */
export const cannotEnableInstance = (
  spec: { readonly enabled: boolean; readonly template: string },
  template: UnitContent | undefined,
  unitFileState: string,
): string | undefined => {
  if (!spec.enabled) return undefined;
  if (template === undefined) return staticTemplateWords(spec, unitFileState);
  return installConfigOf(template) === false
    ? `its template ${spec.template} ${NAMES_NONE} in [Install], so it cannot be enabled`
    : undefined;
};
