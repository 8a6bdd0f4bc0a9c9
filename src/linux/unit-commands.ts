/**
 * The shell commands a unit handler's writes send, built in one place so every operand is quoted.
 */
import { sha256Hex } from '../core/canonical';
import { privileged, quote } from './shell';
import { unitPath } from './unit-file';
import type { UnitSpec } from './systemd-unit';

type Unit = Pick<UnitSpec, 'name' | 'directory'>;

/**
 * Writes stdin to `path` atomically: a temp file from mktemp in the same directory (made if missing),
 * installed by rename only when its digest is the content's. A writer killed mid-stream closes
 * stdin early, so an unchecked `cat` would install the truncated file; the trap removes the temp file.
 */
export const writeFileCommand = (directory: string, path: string, content: string, sudo: boolean): string => {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const bytes = Buffer.byteLength(content, 'utf8');
  const script = [
    `umask 022 && mkdir -p ${quote(directory)} && ` +
      `tmp=$(mktemp -p ${quote(directory)} ${quote(`.${base}.XXXXXX`)}) || exit 1`,
    `trap '[ -z "$tmp" ] || rm -f -- "$tmp"' EXIT`,
    `trap 'exit 1' HUP INT TERM PIPE`,
    `cat > "$tmp" || exit 1`,
    `set -- $(sha256sum < "$tmp")`,
    `if [ "$1" != ${sha256Hex(content)} ]; then`,
    `  echo ${quote(`${path} not written:`)} "$(wc -c < "$tmp") bytes arrived, not the ${bytes} sent (cut short)" >&2`,
    `  exit 1`,
    `fi`,
    `chmod 0644 "$tmp" && mv -f -- "$tmp" ${quote(path)} && tmp=`,
  ].join('\n');
  return privileged(script, sudo);
};

/** Removes a file and its directory when that is left empty (a drop-in's `<unit>.d`). */
export const removeFileCommand = (path: string, sudo: boolean): string =>
  privileged(
    `rm -f -- ${quote(path)} && { rmdir -- ${quote(path.slice(0, path.lastIndexOf('/')))} 2>/dev/null || true; }`,
    sudo,
  );

/** `systemctl daemon-reload`: systemd loads every unit file as it is now. */
export const reloadCommand = (sudo: boolean): string => privileged('systemctl daemon-reload', sudo);

/** `systemctl <verb> [flags] -- <name>`; start, restart and stop go with `--no-block` and a polled wait. */
export const systemctl = (verb: string, sudo: boolean, name?: string, ...flags: string[]): string =>
  privileged(`systemctl ${[verb, ...flags].join(' ')}${name === undefined ? '' : ` -- ${quote(name)}`}`, sudo);

/** A shell that runs the script on its stdin, privileged. */
export const scriptCommand = (sudo: boolean): string => privileged('sh -s', sudo);

/**
 * A command taking any number of units, and the script it reads on stdin: many hundreds of unit
 * names would pass the kernel's 128 KiB limit on one argument (`sudo sh -c` is one).
 */
export const manyUnitsCommand = (verb: string, names: readonly string[], sudo: boolean, ...flags: string[]) => ({
  command: scriptCommand(sudo),
  script: `systemctl ${[verb, ...flags].join(' ')} -- ${names.map(quote).join(' ')}\n`,
});

/**
 * The units a `systemctl start|stop|restart` of many did not queue, each with systemctl's line; it
 * goes on after a unit it cannot queue (measured, systemd 252: `Failed to start x.service: Unit
 * x.service not found.`).
 */
export const notQueued = (verb: string, stderr: string): Map<string, string> => {
  const failed = new Map<string, string>();
  for (const line of stderr.split('\n')) {
    const match = /^Failed to (\S+) (\S+): /.exec(line);
    if (match?.[1] === verb && match[2] !== undefined) failed.set(match[2], line);
  }
  return failed;
};

/** The unit's last journal lines, for a failure message; needs no root on a default journal setup. */
export const journalCommand = (name: string, sudo: boolean, lines = 20): string =>
  privileged(`journalctl -u ${quote(name)} -n ${lines} --no-pager -o short-iso 2>&1 | tail -n ${lines}`, sudo);

/** Where a mask link of `unit` can be: its own directory, then the admin and runtime directories. */
export const maskPaths = (unit: Unit): string[] => [
  ...new Set([unitPath(unit), `/etc/systemd/system/${unit.name}`, `/run/systemd/system/${unit.name}`]),
];

/** Exit code of `unmaskCommand` when a real file, not a /dev/null link, masks the unit. */
export const UNMASK_REFUSED = 3;

/**
 * Removes the unit's /dev/null links. An empty regular file masks a unit too, and `systemctl unmask`
 * deletes it (measured, systemd 252); it may be someone's file, so this refuses and names it.
 */
export const unmaskCommand = (unit: Unit, sudo: boolean): string => {
  const paths = maskPaths(unit).map(quote).join(' ');
  const script =
    `for f in ${paths}; do if [ -L "$f" ] && [ "$(readlink -- "$f")" = /dev/null ]; then rm -f -- "$f" || exit 1; ` +
    `elif [ -f "$f" ] && [ ! -s "$f" ] && [ ! -L "$f" ]; then ` +
    `echo "$f is an empty file, not a /dev/null link" >&2; exit ${UNMASK_REFUSED}; fi; done`;
  return privileged(script, sudo);
};
