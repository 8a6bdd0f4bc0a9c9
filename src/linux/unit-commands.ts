/**
 * The shell commands a unit handler's writes send, built in one place so every operand is quoted.
 */
import { privileged, quote } from './shell';
import { RESTART_ON_DIR, restartOnPath, unitPath, type UnitSpec } from './unit';

type Unit = Pick<UnitSpec, 'name' | 'directory'>;

/** Writes stdin to the unit path atomically: a temp file in the same directory, then rename. */
export const writeCommand = (unit: Unit, sudo: boolean): string => {
  const path = quote(unitPath(unit));
  const script =
    `umask 022 && tmp=$(mktemp -p ${quote(unit.directory)} ${quote(`.${unit.name}.XXXXXX`)}) && ` +
    `{ cat > "$tmp" && chmod 0644 "$tmp" && mv -f "$tmp" ${path}; } || { rm -f "$tmp"; exit 1; }`;
  return privileged(script, sudo);
};

export const catCommand = (unit: Unit): string => `cat -- ${quote(unitPath(unit))}`;

export const removeCommand = (unit: Unit, sudo: boolean): string =>
  privileged(`rm -f -- ${quote(unitPath(unit))} ${quote(restartOnPath(unit))}`, sudo);

export const systemctl = (verb: string, sudo: boolean, name?: string): string =>
  privileged(`systemctl ${verb}${name === undefined ? '' : ` -- ${quote(name)}`}`, sudo);

export const recordRestartOnCommand = (unit: Unit, digest: string, sudo: boolean): string =>
  privileged(`mkdir -p ${RESTART_ON_DIR} && printf '%s\\n' ${quote(digest)} > ${quote(restartOnPath(unit))}`, sudo);
