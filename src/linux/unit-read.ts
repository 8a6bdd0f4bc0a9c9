/**
 * The read of every declared unit on a host in one shell round trip: one `systemctl show` for all
 * of them, then the file digests and the recorded restartOn digests. The script goes over stdin,
 * so hundreds of units never meet the kernel's 128 KiB limit on one argument.
 */
import { quote } from './shell';
import { type LiveUnit, restartOnPath, unitPath, type UnitSpec } from './unit';
import { isTemplate } from './unit-name';
import { parseShow, SHOW_PROPERTIES, type UnitStatus } from './unit-state';

type Unit = Pick<UnitSpec, 'name' | 'directory'>;

const MARK = {
  files: '@@cdktf-homelab:files',
  restartOn: '@@cdktf-homelab:restart-on',
  templates: '@@cdktf-homelab:templates',
} as const;

/** The shell script (for `sh -s`) that reads `units`. */
export const readScript = (units: readonly Unit[]): string => {
  const instances = units.filter((unit) => !isTemplate(unit.name)).map((unit) => quote(unit.name));
  const indexed = (paths: readonly string[], body: string) =>
    `i=0; for f in ${paths.map(quote).join(' ')}; do ${body}; i=$((i+1)); done`;
  return [
    // `systemctl show` with no unit shows the manager itself, so it runs only when there are units.
    instances.length > 0 ? `systemctl show -p ${SHOW_PROPERTIES.join(',')} -- ${instances.join(' ')}` : 'true',
    `echo ${MARK.files}`,
    indexed(units.map(unitPath), `if [ -f "$f" ]; then printf '%s ' "$i"; sha256sum < "$f"; fi`),
    `echo ${MARK.restartOn}`,
    indexed(units.map(restartOnPath), `if [ -f "$f" ]; then printf '%s %s\\n' "$i" "$(head -c 128 "$f")"; fi`),
    `echo ${MARK.templates}`,
    ...units.flatMap((unit, index) =>
      // `systemctl show` refuses a template name; `is-enabled` answers for it.
      isTemplate(unit.name) ? [`printf '%s %s\\n' ${index} "$(systemctl is-enabled -- ${quote(unit.name)} 2>/dev/null)"`] : [],
    ),
    '',
  ].join('\n');
};

/** Each unit's live state, in the order given; undefined when systemctl printed no unit (no systemd). */
export const parseReadScript = (stdout: string, units: readonly Unit[]): LiveUnit[] | undefined => {
  const [show = '', afterShow = ''] = splitOnce(stdout, `${MARK.files}\n`);
  const [files = '', afterFiles = ''] = splitOnce(afterShow, `${MARK.restartOn}\n`);
  const [restartOn = '', templates = ''] = splitOnce(afterFiles, `${MARK.templates}\n`);
  const blocks = show.split(/\n\s*\n/).filter((block) => block.trim() !== '');
  const expected = units.filter((unit) => !isTemplate(unit.name)).length;
  if (blocks.length !== expected) return undefined;
  const statuses = blocks.map(parseShow);
  if (statuses.some((status) => status.loadState === '')) return undefined;
  const digests = byIndex(files, (rest) => rest.split(/\s+/)[0]);
  const recorded = byIndex(restartOn, (rest) => rest.trim());
  const enablement = byIndex(templates, (rest) => rest.trim());
  let next = 0;
  return units.map((unit, index) => {
    const fileSha256 = digests.get(index);
    const status = isTemplate(unit.name) ? templateStatus(fileSha256, enablement.get(index) ?? '') : statuses[next++];
    return { status: status as UnitStatus, fileSha256, restartOn: recorded.get(index) };
  });
};

/** A template is a file, never a running unit: loaded when its file exists, enabled as systemd says. */
const templateStatus = (fileSha256: string | undefined, unitFileState: string): UnitStatus => ({
  loadState: fileSha256 === undefined ? 'not-found' : 'loaded',
  activeState: 'inactive',
  subState: 'dead',
  unitFileState,
  needDaemonReload: false,
});

const splitOnce = (text: string, mark: string): [string, string] => {
  const at = text.indexOf(mark);
  return at < 0 ? [text, ''] : [text.slice(0, at), text.slice(at + mark.length)];
};

/** `<index> <rest>` lines into a map; lines that are not that shape are ignored. */
const byIndex = (text: string, value: (rest: string) => string | undefined): Map<number, string> => {
  const map = new Map<number, string>();
  for (const line of text.split('\n')) {
    const match = /^(\d+) (.*)$/.exec(line);
    const parsed = match?.[2] === undefined ? undefined : value(match[2]);
    if (match !== null && parsed !== undefined && parsed !== '') map.set(Number(match[1]), parsed);
  }
  return map;
};
