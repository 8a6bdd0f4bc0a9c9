/**
 * A unit's [Install] `Also=`: `systemctl enable`, `disable` and `reenable` act on the units it names too, so the
 * apply's enablement step changes their links and a destroy's disable unlinks them (measured, systemd 252: the
 * disable of a unit declared disabled unlinked another unit enabled by hand, and a rewrite's reenable its link to
 * another target, under a plan that named only the unit). The plan says so wherever the apply switches the unit.
 */
import { installSettings, installValues } from './install-settings';
import type { DesiredUnit, LiveUnit } from './unit-control';
import { enableStep } from './unit-enable-step';

/** The units the declared text's `Also=` names, each once, in order. */
export const alsoNames = (content: string | undefined): string[] =>
  content === undefined ? [] : [...new Set(installValues(installSettings(content)).get('Also') ?? [])];

/**
 * The plan's words for the units `Also=` names, when the apply's enablement step (`enableStep`) will act on them
 * too; undefined when it runs none or the text names none. `rewritten`: the apply writes the file first.
 */
export const alsoWords = (spec: DesiredUnit, live: LiveUnit, rewritten: boolean): string | undefined => {
  const names = alsoNames(spec.content);
  const step = names.length === 0 ? undefined : enableStep(spec, live, rewritten);
  if (step === undefined) return undefined;
  const verb = step === 'relink' ? 'disable and enable' : step;
  return `its [Install] Also= names ${names.join(', ')}, which the apply's systemctl ${verb} acts on too (measured)`;
};
