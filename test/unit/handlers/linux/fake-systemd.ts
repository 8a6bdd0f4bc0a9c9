/**
 * A host that answers the Linux handlers' commands as systemd 252 would, closely enough to count
 * them: unit files and drop-ins on disk, what the manager loaded at its last reload (or first use),
 * jobs that finish by the next look, and `ExecStart=/bin/false` that fails. It records every command
 * and counts reloads, so a test can say one reload for many units and one start for all of them.
 */
import { sha256Hex } from '../../../../src/core/canonical';
import { helperCommand } from '../../../../src/linux/root-helper';
import type { CommandResult, Remote } from '../../../../src/linux/ssh';
import { ConnectionLost } from '../../../../src/linux/ssh';
import { instanceOf } from '../../../../src/linux/unit-name';
import { operands, readScript } from './fake-systemd-read';

const DIR = '/etc/systemd/system';
const RECORDS = '/var/lib/cdktf-homelab/restart-on';
const MARKS = '/var/lib/cdktf-homelab/drop-ins';
const INTENTS = '/var/lib/cdktf-homelab/intents';
const KEPT = '/var/lib/cdktf-homelab/kept';

export const TARGET = {
  host: 'h',
  port: 22,
  user: 'root',
  hostKey: `SHA256:${'A'.repeat(43)}`,
  readyTimeoutSeconds: 20,
  keepaliveIntervalSeconds: 15,
  sudo: false,
};

interface UnitState {
  active: string;
  sub: string;
  /** Its links under /etc: `enabled` or `disabled`. */
  enabled: string;
  /** Its links under /run (`enable --runtime`), which `disable` alone leaves. */
  runtime?: boolean;
  /** The text the manager loaded: the file and its drop-ins; undefined until loaded. */
  loaded?: string;
  /** The drop-ins it loaded then (`DropInPaths`): one made after that is on disk alone until a reload. */
  dropIns?: string[];
}

export interface FakeSystemd {
  readonly remote: Remote;
  readonly files: Map<string, string>;
  readonly commands: string[];
  readonly reloads: () => number;
  readonly state: (name: string) => string;
  readonly enabled: (name: string) => string;
  /** Masks a unit with a /dev/null link. */
  readonly mask: (name: string) => void;
  /** Makes writes to `path` and its removal fail, as a read-only file system does. */
  readonly refuseWrites: (path: string) => void;
  /** Makes every command from now on fail as a dropped connection does. */
  readonly dropConnection: () => void;
}

const ok = (stdout = ''): CommandResult => ({ code: 0, stdout, stderr: '' });
/** What list-unit-files and is-enabled say: links under /etc win over those under /run. */
const fileStateOf = (u: UnitState): string =>
  u.enabled === 'enabled' ? 'enabled' : u.runtime === true ? 'enabled-runtime' : u.enabled;

export const fakeSystemd = (): FakeSystemd => {
  const files = new Map<string, string>();
  const units = new Map<string, UnitState>();
  const commands: string[] = [];
  const masked = new Set<string>();
  const readOnly = new Set<string>();
  let reloads = 0;
  let dropped = false;

  const fileOf = (name: string) => files.get(`${DIR}/${instanceOf(name) ?? name}`);
  const text = (name: string): string | undefined => {
    const own = fileOf(name);
    if (own === undefined) return undefined;
    return [own, ...dropInsOf(name).map((path) => files.get(path))].join('\n');
  };
  const dropInsOf = (name: string) => [...files.keys()].filter((path) => path.startsWith(`${DIR}/${name}.d/`));
  const load = (name: string, u: UnitState) => Object.assign(u, { loaded: text(name), dropIns: dropInsOf(name) });
  const unit = (name: string): UnitState => {
    const found = units.get(name) ?? { active: 'inactive', sub: 'dead', enabled: 'disabled' };
    units.set(name, found);
    if (found.loaded === undefined) load(name, found); // loaded on first use
    // A stopped unit nothing refers to is dropped once its file is gone.
    if (text(name) === undefined && found.active === 'inactive' && fileStateOf(found) === 'disabled')
      found.loaded = undefined;
    return found;
  };
  const show = (name: string) => {
    if (masked.has(name))
      return 'LoadState=masked\nActiveState=inactive\nSubState=dead\nUnitFileState=masked\nNeedDaemonReload=no\n';
    const u = unit(name);
    const state = u.loaded === undefined ? 'not-found' : 'loaded';
    const fileState = u.loaded === undefined ? '' : fileStateOf(u);
    const stale = u.loaded !== undefined && u.loaded !== text(name) ? 'yes' : 'no';
    const dropIns =
      u.loaded === undefined || (u.dropIns ?? []).length === 0 ? '' : `DropInPaths=${u.dropIns?.join(' ')}\n`;
    return (
      `LoadState=${state}\nActiveState=${u.active}\nSubState=${u.sub}\nUnitFileState=${fileState}\n` +
      `NeedDaemonReload=${stale}\n${dropIns}Job=\nType=notify\n`
    );
  };
  const run = (verb: string, names: string[], runtime = false): CommandResult => {
    const failures = names.flatMap((name) => {
      const u = unit(name);
      if (['enable', 'disable', 'reenable'].includes(verb)) {
        if (fileOf(name) === undefined) return [`Failed to ${verb} unit: Unit file ${name} does not exist.`];
        return [];
      }
      if (['start', 'restart'].includes(verb) && u.loaded === undefined)
        return [`Failed to ${verb} ${name}: Unit ${name} not found.`];
      return [];
    });
    if (['enable', 'disable', 'reenable'].includes(verb) && failures.length > 0)
      return { code: 1, stdout: '', stderr: failures.join('\n') };
    for (const name of names) {
      const u = unit(name);
      if (verb === 'enable' || verb === 'disable') {
        if (runtime) u.runtime = verb === 'enable';
        else u.enabled = `${verb}d`;
      }
      if (verb === 'reenable') u.enabled = 'enabled';
      if (verb === 'stop' || (verb === 'reset-failed' && u.active === 'failed'))
        [u.active, u.sub] = ['inactive', 'dead'];
      if ((verb === 'start' || verb === 'restart') && u.loaded !== undefined)
        [u.active, u.sub] = /ExecStart=\/bin\/false/.test(u.loaded) ? ['failed', 'failed'] : ['active', 'running'];
    }
    return { code: failures.length > 0 ? 1 : 0, stdout: '', stderr: failures.join('\n') };
  };
  /** What the root helper's remove-unit and destroy-unit steps drop (the fake has no links). */
  const removal = (name: string, ownsFile: boolean): string =>
    [...(ownsFile ? [`${DIR}/${name}`] : []), `${RECORDS}/${name}`, `${INTENTS}/${name}`, `${KEPT}/${name}`]
      .flatMap((path) => (files.delete(path) ? [`removed ${path}\n`] : []))
      .join('');
  const script = (stdin: string): CommandResult => {
    if (stdin.includes('@@cdktf-homelab:files'))
      return ok(readScript(stdin, { files, masked, show, fileOf, fileState: (name) => fileStateOf(unit(name)) }));
    const [, verb = '', flags = '', names = ''] =
      /^systemctl (\S+)(?: -p \S+)?((?: --\S+)*) -- (.*)\n/.exec(stdin) ?? [];
    if (verb === 'show') return ok(operands(names).map(show).join('\n'));
    return run(verb, operands(names), flags.includes('--runtime')); // a test's own change, as an admin would make it
  };
  /** One step of a root helper request (root-helper.ts), `content` its file when a write. */
  const step = (words: string[], content: string): CommandResult => {
    const [verb = '', ...args] = words;
    const dropIn = () => `${args[0]}/${args[1]}.d/${args[2]}.conf`;
    const rest = (from: number) => `${args.slice(from).join(' ')}\n`;
    // A write keeps the file it replaces at `kept`, only while that file is the one its step names; a restore moves it
    // back.
    const write = (path: string, kept: string, replaces: string) => {
      if (readOnly.has(path)) return { code: 1, stdout: '', stderr: 'Read-only file system' };
      const previous = files.get(path);
      const found = previous === undefined ? 'none' : sha256Hex(previous);
      if (found !== replaces) {
        const now = previous === undefined ? 'gone now' : `now ${Buffer.byteLength(previous)} bytes`;
        const read = `${replaces === 'none' ? 'absent' : 'a file'} when read, ${now}`;
        return { code: 1, stdout: '', stderr: `${path} not written: it changed after this apply read it (${read})` };
      }
      if (previous !== undefined) files.set(kept, previous);
      files.set(path, content);
      return ok(`wrote ${path}\n`);
    };
    // An undo acts only while the file is the content its apply wrote (`wrote`): another is left, named `changed`.
    const restore = (path: string, kept: string, wrote: string, how = 'kept') => {
      const previous = files.get(kept);
      if (how === 'kept' && previous === undefined)
        return { code: 1, stdout: '', stderr: `${path} not restored: no copy of it was kept` };
      const now = files.get(path);
      if ((now === undefined ? 'none' : sha256Hex(now)) !== wrote && (how === 'kept' || now !== undefined))
        return ok(`changed ${path}\n`);
      if (previous === undefined || how === 'none') files.delete(path);
      else files.set(path, previous);
      files.delete(kept);
      return ok();
    };
    switch (verb) {
      case 'systemctl':
        return run(
          args[0] ?? '',
          args.slice(1).filter((word) => !word.startsWith('--')),
          args.includes('--runtime'),
        );
      case 'reload':
        reloads += 1;
        for (const [name, u] of units) load(name, u);
        return ok();
      case 'unmask':
        masked.delete(args[1] ?? '');
        return ok();
      case 'write-unit':
        return write(`${args[0]}/${args[1]}`, `${KEPT}/${args[1]}`, args[2] ?? '');
      case 'write-drop-in':
        return write(dropIn(), `${KEPT}/drop-ins${dropIn()}`, args[3] ?? '');
      case 'restore-unit':
        return restore(`${args[0]}/${args[1]}`, `${KEPT}/${args[1]}`, args[2] ?? '');
      case 'restore-drop-in':
        return restore(dropIn(), `${KEPT}/drop-ins${dropIn()}`, args[3] ?? '', args[4]);
      case 'remove-unit': {
        const now = files.get(`${args[0]}/${args[1]}`);
        if (now !== undefined && sha256Hex(now) !== args[2]) return ok(`changed ${args[0]}/${args[1]}\n`);
        return ok(removal(args[1] ?? '', true));
      }
      case 'destroy-unit':
        if (args[4] === 'failed') run('reset-failed', [args[1] ?? '']);
        return ok(`unit ${args[1]}\n${removal(args[1] ?? '', args[2] === 'file')}end\n`);
      case 'remove-drop-in':
        if (readOnly.has(dropIn())) return { code: 1, stdout: '', stderr: 'Read-only file system' };
        files.delete(dropIn());
        return ok();
      case 'forget-drop-in':
        for (const at of [MARKS, `${INTENTS}/drop-ins`, `${KEPT}/drop-ins`]) files.delete(`${at}${dropIn()}`);
        return ok();
      case 'intent-unit':
        files.set(`${INTENTS}/${args[0]}`, `cdktf-homelab-intent since=0 ${rest(1)}`);
        return ok();
      case 'intent-drop-in':
        files.set(`${INTENTS}/drop-ins${dropIn()}`, `cdktf-homelab-intent since=0 ${rest(3)}`);
        return ok();
      case 'record-unit':
        files.set(`${RECORDS}/${args[0]}`, rest(1));
        return ok();
      case 'record-drop-in':
        files.set(`${MARKS}${dropIn()}`, rest(3));
        return ok();
      case 'clear-unit-intent':
        for (const at of [INTENTS, KEPT]) files.delete(`${at}/${args[0]}`);
        return ok();
      case 'clear-drop-in-intent':
        for (const at of [INTENTS, KEPT]) files.delete(`${at}/drop-ins${dropIn()}`);
        return ok();
      case 'journal':
        return ok('started\nfailed\n');
      default:
        return ok();
    }
  };
  /** A root helper request: each step logged as `root: <step>`, run in order until one fails. */
  const helper = (stdin: string): CommandResult => {
    const end = stdin.indexOf('\nend\n');
    let files = Buffer.from(stdin.slice(end + 5));
    const out: string[] = [];
    for (const line of stdin.slice(0, end).split('\n').slice(1)) {
      commands.push(`root: ${line}`);
      const words = line.split(' ');
      // A write's file: the next bytes after the end line, as many as its step names.
      const size = line.startsWith('write-') ? Number(words.at(-1)) : 0;
      const result = step(words, files.subarray(0, size).toString());
      files = files.subarray(size);
      out.push(result.stdout);
      if (result.code !== 0) return { ...result, stdout: out.join('') };
    }
    return ok(out.join(''));
  };
  const execute = (command: string, stdin = ''): CommandResult => {
    if (command === 'sh -s') return script(stdin);
    if (command === helperCommand(false)) return helper(stdin);
    return ok();
  };
  const remote: Remote = {
    run: async (command, stdin) => {
      if (command !== helperCommand(false))
        commands.push(command === 'sh -s' ? `sh -s: ${(stdin ?? '').split('\n')[0]}` : command);
      if (dropped) throw new ConnectionLost('the server closed the connection', TARGET);
      return execute(command, stdin);
    },
    close: () => undefined,
  };
  return {
    remote,
    files,
    commands,
    reloads: () => reloads,
    state: (name) => `${unit(name).active}/${unit(name).sub}`,
    enabled: (name) => fileStateOf(unit(name)),
    mask: (name) => void masked.add(name),
    refuseWrites: (path) => void readOnly.add(path),
    dropConnection: () => void (dropped = true),
  };
};
