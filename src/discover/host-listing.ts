/**
 * What is under /etc/systemd/system, read in one round trip: every file and link one or two levels
 * down (unit files, drop-ins, `.wants/` links, masks), the paths Debian packages ship there, and the
 * directories of the stacks' marks this login may not search. Names and contents travel as base64,
 * so no name or byte on the host can break the parse.
 */
import { STATE_DIR } from '../linux/state-paths';

export const UNIT_DIR = '/etc/systemd/system';

/** A file's bytes are read up to this many; a bigger one is not a unit file discover declares. */
export const MAX_FILE_BYTES = 256 * 1024;

const OWNED = '@@cdktf-homelab:owned';

/** The script (for `sh -s`); it reads only, and needs no privilege to list /etc/systemd/system. */
export const listingScript = (): string =>
  [
    `d=${UNIT_DIR}`,
    'b() { printf \'%s\' "$1" | base64 -w0; }',
    'for f in "$d"/* "$d"/*/*; do',
    '  r=${f#"$d"/}',
    '  if [ -L "$f" ]; then printf \'L %s %s\\n\' "$(b "$r")" "$(b "$(readlink "$f")")"',
    `  elif [ -f "$f" ]; then printf 'F %s %s\\n' "$(b "$r")" "$(head -c ${MAX_FILE_BYTES + 1} "$f" | base64 -w0)"; fi`,
    'done',
    // A mark below a directory this login may not search reads as absent: such objects cannot be told.
    `find ${STATE_DIR} -type d ! -executable -print 2>/dev/null |`,
    '  while IFS= read -r h; do printf \'H %s\\n\' "$(b "$h")"; done',
    `echo ${OWNED}`,
    // dpkg's file lists name what each package ships; a host without dpkg owns nothing here.
    `cat /var/lib/dpkg/info/*.list 2>/dev/null | grep "^$d/" | base64 -w0; echo`,
    '',
  ].join('\n');

export interface HostListing {
  /** Regular files by path below the unit directory, e.g. `probe@.service`, `ssh.service.d/10-x.conf`. */
  readonly files: ReadonlyMap<string, Buffer>;
  /** Symbolic links by path below the unit directory, and where they point. */
  readonly links: ReadonlyMap<string, string>;
  /** Absolute paths a Debian package ships. */
  readonly owned: ReadonlySet<string>;
  /** Directories below the state directory this login may not search: what is below them it cannot see. */
  readonly hidden: readonly string[];
}

const fromBase64 = (text: string): Buffer => Buffer.from(text, 'base64');

/** The listing from the script's output; lines of any other shape are ignored. */
export const parseListing = (stdout: string): HostListing => {
  const at = stdout.indexOf(`${OWNED}\n`);
  const [entries, owned] = at < 0 ? [stdout, ''] : [stdout.slice(0, at), stdout.slice(at + OWNED.length + 1)];
  const files = new Map<string, Buffer>();
  const links = new Map<string, string>();
  const hidden: string[] = [];
  for (const line of entries.split('\n')) {
    const dir = /^H ([A-Za-z0-9+/=]+)$/.exec(line);
    if (dir !== null) hidden.push(fromBase64(dir[1] ?? '').toString('utf8'));
    const match = /^([FL]) ([A-Za-z0-9+/=]+) ([A-Za-z0-9+/=]*)$/.exec(line);
    if (match === null) continue;
    // Each group matched: the defaults only tell the compiler so.
    const [, type, name = '', content = ''] = match;
    const path = fromBase64(name).toString('utf8');
    if (type === 'F') files.set(path, fromBase64(content));
    else links.set(path, fromBase64(content).toString('utf8'));
  }
  const shipped = fromBase64(owned.trim()).toString('utf8').split('\n');
  return {
    files,
    links,
    owned: new Set(shipped.filter((path) => path !== '')),
    hidden,
  };
};

/** Whether `path` is below one of the `hidden` directories (or is one). */
export const isHidden = (path: string, hidden: readonly string[]): boolean =>
  hidden.some((dir) => path === dir || path.startsWith(`${dir}/`));

/** A file's text when it is UTF-8 and within the size bound, else why not. */
export const fileText = (bytes: Buffer): { text: string } | { why: string } => {
  if (bytes.length > MAX_FILE_BYTES) return { why: `larger than ${MAX_FILE_BYTES / 1024} KiB` };
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) ? { text } : { why: 'not UTF-8 text' };
};

/** `*`, `?` and `[...]` as the shell takes them, over a whole unit name. */
export const globMatcher = (globs: readonly string[]): ((name: string) => boolean) => {
  if (globs.length === 0) return () => true;
  const patterns = globs.map((glob) => {
    let source = '';
    for (let i = 0; i < glob.length; i++) {
      const char = glob.charAt(i);
      const close = char === '[' ? glob.indexOf(']', i + 2) : -1;
      if (char === '*') source += '.*';
      else if (char === '?') source += '.';
      else if (close > 0) {
        const set = glob
          .slice(i + 1, close)
          .replace(/^!/, '^')
          .replace(/[\\\]]/g, '\\$&');
        source += `[${set}]`;
        i = close;
      } else source += char.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    }
    return new RegExp(`^${source}$`, 's');
  });
  return (name) => patterns.some((pattern) => pattern.test(name));
};
