/**
 * The host facts that [Install] specifiers name (%H, %m, %b, %o, %a, ...) and the manager's version (UpheldBy=
 * makes links from 254 on), read by the links `awk` in the same round trip, and only when some [Install] line
 * needs them: without them a unit whose WantedBy= names %H read in sync whatever links it had.
 */
import { type InstallUnknown, refused } from './install-unknown';

/** What the specifiers of the host resolve to, or why the read cannot tell; the manager's version when read. */
export interface HostFacts {
  readonly specifiers: Readonly<Record<string, string | InstallUnknown>>;
  readonly version?: number;
}

/**
 * The awk that prints them (`F.` then `F<key><line>`, and `F:` then the manager's lines when `m` is set), each
 * file as systemd reads it: the kernel's hostname, boot id and release, /etc/machine-id, /etc/machine-info,
 * /etc/os-release or else /usr/lib/os-release; `%a` and the version from pid 1 itself, which enables over
 * D-Bus. Every line is behind an `F`, so none poses as another line of the read.
 */
export const FACTS_AWK =
  'if (h) { print "F."; p("FH", "/proc/sys/kernel/hostname"); p("Fm", "/etc/machine-id"); ' +
  'p("Fb", "/proc/sys/kernel/random/boot_id"); p("Fv", "/proc/sys/kernel/osrelease"); p("FI", "/etc/machine-info"); ' +
  'if (!p("FO", "/etc/os-release")) p("FO", "/usr/lib/os-release") } ' +
  'if (m) { print "F:"; c = "systemctl show -p Version,Architecture 2>/dev/null"; ' +
  'while ((c | getline l) > 0) print "FS" l; close(c) }';

/** The awk function FACTS_AWK uses: print each line of `f` behind `k`; whether `f` could be read to its end. */
export const FACTS_FUNCTION =
  'function p(k, f,  l, r) { while ((r = (getline l < f)) > 0) print k l; close(f); return !r }';

/** The os-release fields of each specifier (specifier.c). */
const OS_RELEASE: Readonly<Record<string, string>> = {
  o: 'ID',
  w: 'VERSION_ID',
  W: 'VARIANT_ID',
  B: 'BUILD_ID',
  M: 'IMAGE_ID',
  A: 'IMAGE_VERSION',
};

/** The facts in the links read's output; undefined when it printed none (no [Install] line needed them). */
export const parseFacts = (text: string): HostFacts | undefined => {
  const lines = text.split('\n');
  const of = (key: string) => lines.filter((line) => line.startsWith(`F${key}`)).map((line) => line.slice(2));
  const manager = new Map(of('S').map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
  const version = Number(/^\d+/.exec(manager.get('Version') ?? '')?.[0] ?? Number.NaN);
  const gathered = lines.includes('F.');
  if (!gathered && !lines.includes('F:')) return undefined;
  const specifiers: Record<string, string | InstallUnknown> = {
    ...(gathered ? hostSpecifiers(of) : {}),
    ...(manager.has('Architecture') ? { a: manager.get('Architecture') ?? '' } : {}),
  };
  return Number.isFinite(version) ? { specifiers, version } : { specifiers };
};

const hostSpecifiers = (of: (key: string) => string[]): Record<string, string | InstallUnknown> => {
  const [hostname = ''] = of('H');
  const [machineId] = of('m');
  const [bootId] = of('b');
  const [release] = of('v');
  const os = envFile(of('O'));
  const pretty = envFile(of('I')).get('PRETTY_HOSTNAME');
  // systemd puts its default hostname for none at all (gethostname_full); which it is, the read does not know.
  const noName = hostname === '' || hostname === '(none)' || hostname.startsWith('.');
  const short = noName
    ? { unknown: 'the host has no hostname, for which systemd uses its default' }
    : (hostname.split('.')[0] ?? '');
  const osField = (field: string) => (of('O').length === 0 ? refused('no os-release') : (os.get(field) ?? ''));
  return {
    H: noName ? short : hostname,
    l: short,
    q: pretty === undefined || pretty === '' ? short : pretty,
    m: machineId === undefined ? refused('no /etc/machine-id') : machineId,
    b: bootId === undefined ? { unknown: "the host's boot id was not read" } : bootId.replaceAll('-', ''),
    v: release ?? { unknown: "the host's kernel release was not read" },
    ...Object.fromEntries(Object.entries(OS_RELEASE).map(([specifier, field]) => [specifier, osField(field)])),
  };
};

/**
 * An env file's assignments (os-release(5), machine-info(5)): a value bare or in one pair of quotes. One with
 * an escape or a quote inside reads as a quote the read does not unescape, so it cannot pose as a plain name.
 */
const envFile = (lines: readonly string[]): Map<string, string | { unknown: string }> => {
  const values = new Map<string, string | { unknown: string }>();
  for (const line of lines) {
    const match = /^\s*([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (match === null) continue;
    const [, key = '', raw = ''] = match;
    const value = raw.trim();
    const inner = /^"([^"\\`$]*)"$|^'([^']*)'$|^([^"'\\\s`$]*)$/.exec(value);
    values.set(
      key,
      inner === null
        ? { unknown: `${key} in an env file holds an escape the read does not unescape` }
        : (inner[1] ?? inner[2] ?? inner[3] ?? ''),
    );
  }
  return values;
};
