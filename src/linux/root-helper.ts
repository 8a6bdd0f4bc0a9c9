/**
 * How a handler asks for a privileged step on a Linux host (issue 27 item 8): as a request to
 * cdktf-homelab-root (root-helper-script.ts), one fixed verb and its arguments per line, never as shell
 * text. A root login runs the helper's text with `sh -c`; any other login runs the installed copy through
 * `sudo -n`, so its sudoers line names that one root-owned file, where the README's line used to name
 * `/bin/sh` (root by another name). Both take the same path through the same text, so every test that
 * logs in as root exercises the helper the sudo user runs.
 */
import { sha256Hex } from '../core/canonical';
import { HandlerError } from '../core/errors';
import { ROOT_HELPER_BODY, ROOT_HELPER_HEAD } from './root-helper-script';
import { quote, sudoRefusal } from './shell';
import { instanceOf } from './unit-name';

/** Where the README installs the helper, and so what the sudoers line names. */
export const ROOT_HELPER_PATH = '/usr/local/sbin/cdktf-homelab-root';

/** The first 12 hex digits of the sha256 of the helper's text (less its version line): a request names it. */
export const ROOT_HELPER_VERSION = sha256Hex(ROOT_HELPER_HEAD + ROOT_HELPER_BODY).slice(0, 12);

/** The helper as installed: what `npx cdktf-homelab root-helper` prints. */
export const rootHelperText = (): string =>
  `#!/bin/sh\n${ROOT_HELPER_HEAD}VERSION=${ROOT_HELPER_VERSION}\n${ROOT_HELPER_BODY}`;

/** Exit code of a request the helper refused (a step outside its rules): nothing was done. */
export const HELPER_REFUSED = 64;
/** Exit code of a request of another version than the installed helper's: nothing was done. */
export const HELPER_OTHER_VERSION = 65;

/** The command that runs the helper: the installed copy through sudo, or its text for a root login. */
export const helperCommand = (sudo: boolean): string =>
  sudo ? `sudo -n ${ROOT_HELPER_PATH}` : `sh -c ${quote(rootHelperText())} cdktf-homelab-root`;

/** What a non-root SSH user needs in sudoers: the helper, nothing else. */
export const sudoersLine = (user: string): string => `${user} ALL=(root) NOPASSWD: ${ROOT_HELPER_PATH}`;

/** How to install the helper on a host from the cdktf-homelab the stack runs (the README's line). */
export const installLine = ({ host, port }: { host: string; port: number }): string =>
  `npx cdktf-homelab root-helper | ssh ${port === 22 ? '' : `-p ${port} `}root@${host} ` +
  `'install -m 0755 -o root -g root /dev/stdin ${ROOT_HELPER_PATH}'`;

/**
 * Why a request ran none of its steps, as the error to throw: sudo refused to run the helper (the line is
 * missing or is the old `/bin/sh` one, or the helper is not installed), the helper refused a step, or it
 * is another version. Undefined for a request the helper ran, whether its steps succeeded or not.
 */
export const helperRefusal = (
  { code, stderr }: { readonly code: number; readonly stderr: string },
  login: { readonly sudo: boolean; readonly user: string; readonly host: string; readonly port: number },
  where: string,
): HandlerError | undefined => {
  if (code === 0) return undefined;
  const refusal = login.sudo ? sudoRefusal(stderr) : undefined;
  const install = installLine(login);
  if (refusal !== undefined)
    return new HandlerError(
      `sudo on ${where} refused to run the root helper`,
      `${refusal}; every privileged step goes through ${ROOT_HELPER_PATH}, so ${login.user} needs ` +
        `"${sudoersLine(login.user)}" in /etc/sudoers.d/ and the helper installed (${install}), or connect as root`,
    );
  if (code === HELPER_OTHER_VERSION)
    return new HandlerError(
      `the root helper on ${where} is another version than this cdktf-homelab's (${ROOT_HELPER_VERSION})`,
      `${stderr.trim()}; install this one: ${install}`,
    );
  return code === HELPER_REFUSED
    ? new HandlerError(`the root helper on ${where} refused a step`, stderr.trim())
    : undefined;
};

/** One step: its verb and arguments, each one word the helper checks again. */
export type HelperStep = readonly string[];

/** The unit or drop-in a step is about; an instance is a unit without a file of its own. */
export type UnitObject =
  | { readonly sort: 'unit'; readonly directory: string; readonly name: string }
  | { readonly sort: 'drop-in'; readonly directory: string; readonly unit: string; readonly name: string };

/** The arguments that name `object`: a unit by its name (and directory where it has a file), a drop-in by all three. */
const named = (object: UnitObject, withDirectory: boolean): string[] =>
  object.sort === 'unit'
    ? [...(withDirectory ? [object.directory] : []), object.name]
    : [object.directory, object.unit, object.name];

const suffix = (object: UnitObject): string => (object.sort === 'unit' ? 'unit' : 'drop-in');

/** A word the protocol can carry: no space, no line break, no control character. */
const WORD = /^[^\s\p{Cc}]+$/u;

/**
 * The request for `steps`, then after its end line `contents`: the files of its write steps, one each, in their
 * order (the helper reads each by the size its step names). A word that is not one (a space or line break
 * inside, which no checked name or digest holds) or a content its step does not name is a bug here, never sent.
 */
export const helperRequest = (steps: readonly HelperStep[], contents: readonly string[] = []): string => {
  for (const step of steps) {
    const bad = step.find((word) => !WORD.test(word));
    if (bad !== undefined || step.length === 0) throw new Error(`not a root helper step: ${JSON.stringify(step)}`);
  }
  const writes = steps.filter((step) => step[0]?.startsWith('write-'));
  const named = (step: HelperStep, content: string | undefined) =>
    content !== undefined && step.slice(-2).join(' ') === `${sha256Hex(content)} ${Buffer.byteLength(content, 'utf8')}`;
  if (writes.length !== contents.length || writes.some((step, index) => !named(step, contents[index])))
    throw new Error('each write step has its content, in the order of the steps, and only a write has content');
  const lines = [`cdktf-homelab-root ${ROOT_HELPER_VERSION}`, ...steps.map((step) => step.join(' ')), 'end'];
  return `${lines.join('\n')}\n${contents.join('')}`;
};

/** `systemctl <verb> [--no-block|--no-reload [--runtime]] -- <names>`, many units in one step. */
export const systemctlStep = (verb: string, names: readonly string[], flag?: string, runtime = false): HelperStep => [
  'systemctl',
  verb,
  ...(flag === undefined ? [] : [flag]),
  ...(runtime ? ['--runtime'] : []),
  ...names,
];

/**
 * How an apply or its undo links units: `reenable` unlinks under /etc first, so links an old [Install]
 * made go; `enable-runtime` links under /run alone, until the next boot; `reenable-runtime` unlinks and
 * links again under /run alone, leaving /etc as it is (measured, systemd 252).
 */
export type LinkVerb = 'enable' | 'reenable' | 'relink' | 'enable-runtime' | 'reenable-runtime' | 'disable';

/**
 * The steps of `verb`, one request, before the caller's reload. `relink` is a template's with Alias= and
 * DefaultInstance=, given its default instances: it unlinks the links named for each (as `disable`), then enables
 * its template, which links them and the template's aliases again; the instance's reenable would link its own
 * alias, which the template's enable does not make (measured, systemd 252). `disable` unlinks under /etc, then under
 * /run: alone it left the links of an `enable --runtime`, and the unit read enabled-runtime (measured,
 * systemd 252; `disable --runtime` of a unit with none there exits 0). `reenable` unlinks under /run first
 * for the same reason: it acts under /etc alone, and a /run link an old [Install] made stayed.
 */
export const linkSteps = (verb: LinkVerb, names: readonly string[]): HelperStep[] =>
  verb === 'relink'
    ? [...linkSteps('disable', names), systemctlStep('enable', templatesOf(names), '--no-reload')]
    : verb === 'disable'
      ? [systemctlStep('disable', names, '--no-reload'), systemctlStep('disable', names, '--no-reload', true)]
      : verb === 'reenable'
        ? [systemctlStep('disable', names, '--no-reload', true), systemctlStep('reenable', names, '--no-reload')]
        : verb === 'reenable-runtime'
          ? [systemctlStep('reenable', names, '--no-reload', true)]
          : [systemctlStep('enable', names, '--no-reload', verb === 'enable-runtime')];

/** The templates of `relink`'s default instances, each once. */
const templatesOf = (names: readonly string[]): string[] => [...new Set(names.map((name) => instanceOf(name) ?? name))];

export const RELOAD: HelperStep = ['reload'];

/** Removes the unit's /dev/null masks; refuses (exit 3) an empty regular file, which masks too. */
export const unmaskStep = (unit: { directory: string; name: string }): HelperStep => [
  'unmask',
  unit.directory,
  unit.name,
];

/**
 * Installs a unit file or drop-in whole, checked by the sha256 and size of `content`, which follows the request's
 * end line (`helperRequest`), and only over the file the apply read there: `replaces`, its sha256 (undefined: no
 * file). The helper keeps the file it replaces (bytes, mode, owner) until the object's intent is cleared, for
 * `restoreStep`, then fails the step, the file left as it is, where that file is no longer the one read (a hand's
 * edit since the read), and says `wrote <path>` once the file is in place.
 */
export const writeStep = (object: UnitObject, content: string, replaces: string | undefined): HelperStep => [
  `write-${suffix(object)}`,
  ...named(object, true),
  replaces ?? 'none',
  sha256Hex(content),
  String(Buffer.byteLength(content, 'utf8')),
];

/**
 * How many of a request's write steps put their file in place: the helper says `wrote <path>` after each, in the
 * order of the steps, and runs none after one that fails, so these are the first ones.
 */
export const wroteCount = (stdout: string): number =>
  stdout.split('\n').filter((line) => line.startsWith('wrote ')).length;

/**
 * A failed apply's undo of the object's write of `wrote`: the file it replaced, which the helper kept, put back exactly
 * (a drop-in the write made, `replaced` false: removed; a unit's is `removeUnitStep`). Only while the file is still
 * `wrote`: the helper leaves another there (a hand's edit since the write) and says `changed <path>` (`changedPaths`).
 */
export const restoreStep = (object: UnitObject, wrote: string, replaced = true): HelperStep => {
  if (object.sort === 'unit' && !replaced) throw new Error('a new unit file is undone by removeUnitStep');
  const how = object.sort === 'unit' ? [] : [replaced ? 'kept' : 'none'];
  return [`restore-${suffix(object)}`, ...named(object, true), sha256Hex(wrote), ...how];
};

/** The files an undo left because they changed after its apply wrote them, as the helper names them. */
export const changedPaths = (stdout: string): string[] =>
  stdout.split('\n').flatMap((line) => (line.startsWith('changed ') ? [line.slice('changed '.length)] : []));

/**
 * A failed apply's undo of a relink: one link to the unit's file under /etc/systemd/system (`b@.service`,
 * `multi-user.target.wants/a@x.service`), removed where it is that link, as enable made it.
 */
export const unlinkStep = (unit: { directory: string; name: string }, link: string): HelperStep => [
  'unlink',
  unit.directory,
  unit.name,
  link,
];

/**
 * A new unit's undo: its file, record, intent and links, printing what it removed (unit-remove.ts), while its file is
 * still `wrote` (or gone); another there is left with all of them, and said as `restoreStep` says it.
 */
export const removeUnitStep = (unit: { directory: string; name: string }, wrote: string): HelperStep => [
  'remove-unit',
  unit.directory,
  unit.name,
  sha256Hex(wrote),
];

/** What a unit's destroy step is told: whose file it is, and what its caller did and saw. */
export interface DestroyUnitOptions {
  /** Whether the unit's file is ours: false for an instance, whose file is its template's. */
  readonly ownsFile: boolean;
  /** Whether it is enabled, so the step disables it. */
  readonly disable: boolean;
  /** Whether an earlier step of the caller's disabled it already: the step does not disable it again. */
  readonly disabled?: boolean;
  /** Whether the caller saw it failed after its stop: the step clears its failed record. */
  readonly failed?: boolean;
}

/** A unit's or instance's destroy after its stop (`parseRemovals` reads what it prints). */
export const destroyUnitStep = (
  unit: { directory: string; name: string },
  { ownsFile, disable, disabled = false, failed = false }: DestroyUnitOptions,
): HelperStep => [
  'destroy-unit',
  unit.directory,
  unit.name,
  ownsFile ? 'file' : 'instance',
  disable ? (disabled ? 'disabled' : 'disable') : 'keep',
  failed ? 'failed' : 'settled',
];

type DropIn = { readonly directory: string; readonly unit: string; readonly name: string };

/** Removes a drop-in file, and its `<unit>.d` when that is left empty. */
export const removeDropInStep = (dropIn: DropIn): HelperStep => [
  'remove-drop-in',
  dropIn.directory,
  dropIn.unit,
  dropIn.name,
];

/** Removes a drop-in's mark and intent. */
export const forgetDropInStep = (dropIn: DropIn): HelperStep => [
  'forget-drop-in',
  dropIn.directory,
  dropIn.unit,
  dropIn.name,
];

/** The words of a record's or intent's text. */
const wordsOf = (text: string): string[] => text.split(' ');

/** Writes the object's intent: `cdktf-homelab-intent since=<host clock> <text>`. */
export const intentStep = (object: UnitObject, text: string): HelperStep => [
  `intent-${suffix(object)}`,
  ...named(object, false),
  ...wordsOf(text),
];

/** Writes the object's record (a unit's restartOn record, a drop-in's mark): `text`. */
export const recordStep = (object: UnitObject, text: string): HelperStep => [
  `record-${suffix(object)}`,
  ...named(object, false),
  ...wordsOf(text),
];

/** Removes the object's intent, after the records of the same request. */
export const clearIntentStep = (object: UnitObject): HelperStep => [
  `clear-${suffix(object)}-intent`,
  ...named(object, false),
];

/** The unit's last journal lines. */
export const journalStep = (name: string, lines: number): HelperStep => ['journal', name, String(lines)];

/** Every job systemd holds, or the unit's and those it waits for. */
export const listJobsStep = (name?: string): HelperStep => ['list-jobs', ...(name === undefined ? [] : [name])];
