/**
 * The running instances of a template whose file or drop-in the stack declares but which the stack does not declare
 * (started by hand). The apply restarts a running unit whose file or drop-in it writes, declared or not; a template's
 * file or drop-in restarted only the declared instances, and the plan said nothing of the others, which ran on with
 * the old content while the next plan was in sync (measured, systemd 252: systemd-template-drop-in-runs.test.ts,
 * systemd-template-runs.test.ts). The read lists them, the plan names them, the apply restarts them, and a destroy
 * of the drop-in restarts them without it (`removalRestarts`), which the plan that removes it names too.
 */
import { sha256Hex } from '../core/canonical';
import { quote } from './shell';
import type { LiveUnit } from './unit-control';
import type { FileStat } from './file-stat';
import { instanceOf, isTemplate, unitNameProblem } from './unit-name';
import { parseShow } from './unit-state';

/** What the judgement needs of one read entry. */
interface RunEntry {
  readonly unit: string;
  readonly file?: string;
  readonly declared?: { readonly as: 'unit' | 'drop-in' };
}

/** The templates whose declared file or drop-ins the read reads: their instances are shown by glob. */
export const declaredTemplates = (entries: readonly RunEntry[]): string[] => [
  ...new Set(entries.flatMap(({ unit, declared }) => (declared !== undefined && isTemplate(unit) ? [unit] : []))),
];

/** `t@.service` as the glob `systemctl show` expands over loaded units (`t@*.service`), its glob characters escaped. */
export const instanceGlob = (template: string): string => {
  const at = template.indexOf('@');
  const escape = (part: string) => part.replace(/[\\*?[]/g, (c) => `\\${c}`);
  return quote(`${escape(template.slice(0, at + 1))}*${escape(template.slice(at + 1))}`);
};

/**
 * Each entry of `live` that is a template's file or drop-in with the running instances of that template that `entries`
 * do not declare (`show`'s blocks for the globs, `text`), and the file's ctime from `stats`.
 */
export const withTemplateRuns = (
  entries: readonly RunEntry[],
  live: readonly LiveUnit[],
  text: string,
  stats: ReadonlyMap<string, FileStat>,
): LiveUnit[] => {
  const declared = new Set(entries.map((entry) => entry.unit));
  const runs = text
    .split(/\n\s*\n/)
    .filter((block) => block.trim() !== '')
    .map((block) => ({ id: /^Id=(.*)$/m.exec(block)?.[1] ?? '', status: parseShow(block) }))
    // A name that is no unit name (a space, a control character) is never one to restart: in a helper step's line it
    // would name other units.
    .filter(
      ({ id, status }) => status.activeState === 'active' && !declared.has(id) && unitNameProblem(id) === undefined,
    );
  return live.map((unit, index) => {
    const entry = entries[index];
    if (entry?.declared === undefined || !isTemplate(entry.unit)) return unit;
    const templateRuns = runs
      .filter(({ id }) => instanceOf(id) === entry.unit)
      .map(({ id, status }) => ({
        name: id,
        ...(status.startedAt === undefined ? {} : { startedAt: status.startedAt }),
      }));
    const changedAt = entry.file === undefined ? undefined : stats.get(entry.file)?.time;
    return { ...unit, templateRuns, ...(changedAt === undefined ? {} : { fileChangedAt: changedAt }) };
  });
};

/**
 * The undeclared running instances the apply restarts for a template's file or drop-in of `content`: all of them when
 * it writes the file (absent or differing), else those whose process started before the file last changed (an apply
 * stopped between its write and their restart). One whose start is not known is not judged stale.
 */
export const runsToRestart = (content: string | undefined, live: LiveUnit): string[] => {
  const runs = live.templateRuns ?? [];
  if (content === undefined) return [];
  if (live.fileSha256 !== sha256Hex(content)) return runs.map((run) => run.name);
  const changedAt = live.fileChangedAt;
  return changedAt === undefined
    ? []
    : runs.flatMap((run) => (run.startedAt !== undefined && run.startedAt < changedAt ? [run.name] : []));
};

/** The diff's field for them, which the summary names in words. */
export const TEMPLATE_RUNS_FIELD = 'undeclaredInstances';

export const templateRunsDiff = (
  content: string | undefined,
  live: LiveUnit,
): Record<string, { live: unknown; want: unknown }> => {
  const names = runsToRestart(content, live);
  return names.length === 0 ? {} : { [TEMPLATE_RUNS_FIELD]: { live: names, want: 'restarted with the drop-in' } };
};

/** The plan's words for them. */
export const templateRunsWords = (content: string | undefined, live: LiveUnit): string | undefined => {
  const names = runsToRestart(content, live);
  if (names.length === 0) return undefined;
  const [they, them] = names.length === 1 ? ['runs', 'it'] : ['run', 'them'];
  return (
    `${names.join(', ')}, which this stack does not declare, ${they} without its content: ` +
    `the apply restarts ${them} with it`
  );
};

/**
 * The running instances a destroy of a template's drop-in restarts once the file is gone and systemd reloaded: those no
 * stack's record names (`recorded`: started by hand), as the drop-in's apply restarted them with it. No plan names
 * them once the drop-in is gone (its `.d/` goes with it), so left alone they ran its content with nothing saying so. A
 * stack's instance is left to its own plan, which says its restart is pending, as for a plain unit's drop-in.
 */
export const removalRestarts = (dropIn: LiveUnit, recorded: (instance: string) => boolean): string[] =>
  (dropIn.templateRuns ?? [])
    .map((run) => run.name)
    .filter((name) => !recorded(name))
    .sort();

/**
 * What the plan that removes a template's drop-in says of its destroy's restarts (`removalRestarts`, `restarts`):
 * nothing when there are none. The read cannot see the state, so it says "if this plan destroys it".
 */
export const removalRestartWords = (place: string, restarts: readonly string[]): string | undefined =>
  restarts.length === 0
    ? undefined
    : `${place}, if this plan destroys it: its destroy restarts ${restarts.join(', ')} without it ` +
      `(running, and no stack declares ${them(restarts)})`;

/**
 * What a destroy of a drop-in of `unit` says of what runs, `dropIn` read before its removal: a unit keeps its settings
 * until it restarts; a template never runs, its instances do: those it restarted (`restarted`) and those a stack
 * declares, which keep its content until their stack's apply restarts them.
 */
export const keptByRemoval = (unit: string, dropIn: LiveUnit, restarted: readonly string[]): string => {
  if (!isTemplate(unit)) return `${unit} keeps its current settings until it restarts`;
  const kept = (dropIn.templateRuns ?? []).map((run) => run.name).filter((name) => !restarted.includes(name));
  const keeps = kept.length === 1 ? 'keeps its content until it restarts' : 'keep its content until they restart';
  const said = [
    ...(restarted.length === 0
      ? []
      : [`restarted ${restarted.join(', ')} without it (no stack declares ${them(restarted)})`]),
    ...(kept.length === 0
      ? []
      : [
          `${kept.sort().join(', ')} ${keeps} ` +
            `(a stack declares ${them(kept)}: its plan says the restart is pending)`,
        ]),
  ];
  return said.length === 0 ? `no instance of ${unit} runs` : said.join('; ');
};

const them = (names: readonly string[]): string => (names.length === 1 ? 'it' : 'them');
