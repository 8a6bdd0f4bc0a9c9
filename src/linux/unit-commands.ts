/**
 * The shell commands a unit handler sends, built in one place so every operand is quoted. The read
 * is one round trip: status, file digest and the recorded restartOn digest together.
 */
import { privileged, quote } from './shell';
import { type LiveUnit, unitPath, type UnitSpec } from './unit';
import { parseShow, SHOW_PROPERTIES } from './unit-state';

/** Where apply records the restartOn digest it last acted on. */
export const RESTART_ON_DIR = '/var/lib/cdktf-homelab/restart-on';

const FILE_MARK = '@@cdktf-homelab:file';
const RESTART_MARK = '@@cdktf-homelab:restart-on';

type Unit = Pick<UnitSpec, 'name' | 'directory'>;

export const readCommand = (unit: Unit): string => {
  const path = quote(unitPath(unit));
  return [
    `systemctl show -p ${SHOW_PROPERTIES.join(',')} -- ${quote(unit.name)}`,
    `echo ${FILE_MARK}`,
    `if [ -f ${path} ]; then sha256sum < ${path}; fi`,
    `echo ${RESTART_MARK}`,
    `cat ${quote(`${RESTART_ON_DIR}/${unit.name}`)} 2>/dev/null || true`,
  ].join('; ');
};

/** The read's stdout, or undefined when systemctl printed no LoadState (no systemd there). */
export const parseRead = (stdout: string): LiveUnit | undefined => {
  const [show = '', rest = ''] = stdout.split(`${FILE_MARK}\n`);
  const [file = '', restartOn = ''] = rest.split(`${RESTART_MARK}\n`);
  const status = parseShow(show);
  if (status.loadState === '') return undefined;
  const digest = file.trim().split(/\s+/)[0];
  return {
    status,
    fileSha256: digest === undefined || digest === '' ? undefined : digest,
    restartOn: restartOn.trim() === '' ? undefined : restartOn.trim(),
  };
};

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
  privileged(`rm -f -- ${quote(unitPath(unit))} ${quote(`${RESTART_ON_DIR}/${unit.name}`)}`, sudo);

export const systemctl = (verb: string, sudo: boolean, name?: string): string =>
  privileged(`systemctl ${verb}${name === undefined ? '' : ` -- ${quote(name)}`}`, sudo);

export const recordRestartOnCommand = (unit: Unit, digest: string, sudo: boolean): string =>
  privileged(`mkdir -p ${RESTART_ON_DIR} && printf '%s\\n' ${quote(digest)} > ${quote(`${RESTART_ON_DIR}/${unit.name}`)}`, sudo);
