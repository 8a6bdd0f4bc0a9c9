/**
 * Whether `systemctl enable` of a template (`a@.service`) can link anything. Without `DefaultInstance=` it makes
 * only the template's aliases (`Alias=`) and enables `Also=`; a `WantedBy=` or `RequiredBy=` of a target that is
 * no template then fails it (`Destination unit multi-user.target is a non-template unit`, exit 1), and an [Install]
 * with nothing else links nothing (measured, systemd 252 test host: `a@.service` with `WantedBy=` alone fails,
 * with `Also=` enables that unit, with `RequiredBy=` and `DefaultInstance=z` links `a@z.service`, with
 * `DefaultInstance=z` alone prints "no installation config" and links nothing). A template
 * declared enabled so planned an enable the apply then failed and undid. One rule, for synth (the stack's
 * drop-ins), the plan and the apply (unit-enable.ts `cannotEnable`, the batch's): its instances are enabled as
 * instances.
 */
import { broken, type Problem } from '../core/rules';
import type { Known, UnitContent } from './render-unit';
import { type InstallDropIn, installConfigOf, installValuesOf } from './install-config';
import { isTemplate } from './unit-name';

/** What such a template's [Install] lacks. */
const NAMES_NONE = 'names no Alias=, Also=, nor DefaultInstance= beside a WantedBy= or RequiredBy=';

/** The rule, as synth and the apply's refusal state it. */
const TEMPLATE_ENABLE_RULE = `false for a template whose [Install] (its drop-ins' included) ${NAMES_NONE}`;

/** How to make the spec one the apply can apply. */
export const TEMPLATE_ENABLE_FIX =
  'declare it enabled false and enable its instances (SystemdUnit.instance), or give it an [Install] ' +
  'DefaultInstance= or Alias=';

/**
 * Whether enable of the template links nothing (true), can link (false), or cannot be told from known text
 * (undefined): a `WantedBy=`/`RequiredBy=` naming a template target is left to systemd, as not measured.
 */
export const templateLinksNothing = (
  content: UnitContent,
  known?: Known,
  dropIns: readonly InstallDropIn[] = [],
): boolean | undefined => {
  const values = installValuesOf(content, known, dropIns);
  if (values === undefined) return undefined;
  const words = (key: Parameters<typeof values.get>[0]) => values.get(key) ?? [];
  if (words('Alias').length > 0 || words('Also').length > 0) return false;
  const targets = [...words('WantedBy'), ...words('RequiredBy')];
  // `DefaultInstance=` alone links nothing: such a template is `static` (measured, install-config.ts).
  if (words('DefaultInstance').length > 0 && targets.length > 0) return false;
  return !targets.some((target) => isTemplate(target));
};

/**
 * `enabled: true` for a template (`name`) whose enable links nothing (`templateLinksNothing`), at synth; not for
 * one with no installation config at all, which unit-enable.ts's static rule names (one problem, one cause).
 */
export const templateEnabledProblems = (
  name: string,
  enabled: unknown,
  content: UnitContent,
  known?: Known,
  dropIns?: readonly InstallDropIn[],
): Problem[] => {
  if (!isTemplate(name) || enabled !== true || templateLinksNothing(content, known, dropIns) !== true) return [];
  if (installConfigOf(content, known, dropIns) === false) return [];
  return [templateEnabledProblem()];
};

/** The problem of `enabled: true` on such a template, as synth and the apply's refusal say it. */
export const templateEnabledProblem = (): Problem => {
  const { prop, says } = broken('enabled', TEMPLATE_ENABLE_RULE, true);
  return { prop, says: `${says} (${WHY})` };
};

const WHY =
  'systemctl enable of a template without DefaultInstance= makes only its aliases: a WantedBy= of a target ' +
  'that is no template fails it';

/** The plan's and the apply's words for it; undefined when its enable can link, or when text cannot tell. */
export const templateCannotEnable = (content: UnitContent, dropIns: readonly InstallDropIn[]): string | undefined =>
  templateLinksNothing(content, undefined, dropIns) === true
    ? `its [Install], with the batch's drop-ins of it, ${NAMES_NONE}, so it cannot be enabled (${WHY}, measured)`
    : undefined;
