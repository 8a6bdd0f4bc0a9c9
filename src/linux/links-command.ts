/**
 * The read's command for a unit's [Install] links (unit-read.ts runs it, unit-links.ts parses what it prints): one
 * `find` of the links under both roots and one `awk` over the unit files and drop-ins. It prevents a read that
 * misses a link added by hand, or reads an [Install] other than the one systemd loads, and a per-unit `find`
 * (measured below) that made the read grow with the units linked.
 */
import { FACTS_AWK, FACTS_FUNCTION } from './unit-facts';

/** Where `systemctl enable` links (/etc) and `enable --runtime` links (/run). */
export const LINK_ROOTS = { etc: '/etc/systemd/system', run: '/run/systemd/system' } as const;

/**
 * The other unit directories whose `.wants/` links and aliases pid1 follows (`systemd-analyze unit-paths`, systemd
 * 252) and an admin may link in by hand, which no `systemctl disable`, `disable --runtime` or `reenable` touches
 * (measured: unit-other-links.ts). Not the generators' (emptied at each daemon-reload, measured) nor /usr/lib and
 * /lib, whose links are the package's, shipped with a unit as its file is (138 on a bare Debian 12). Their cost:
 * the `find` over 200 units' links took 15.6-16.2 ms against 14.4-15.5 without them (medians of 21, inside the test
 * host, load 3.6).
 */
export const OTHER_LINK_ROOTS = [
  '/etc/systemd/system.control',
  '/run/systemd/system.control',
  '/run/systemd/transient',
  '/etc/systemd/system.attached',
  '/run/systemd/system.attached',
  '/usr/local/lib/systemd/system',
] as const;

/**
 * The awk function that takes one logical line `x` of file `f` (comments skipped, continuations joined, lines
 * ended at LF, CR and CRLF, a byte order mark skipped, as install-settings.ts reads them): a header sets whether
 * the lines after it are [Install]'s, and each of those is printed behind `|`, `h` and `m` set for the facts it
 * needs.
 */
const SECTION_FUNCTION =
  'function w(f, x) { if (x ~ /^[ \\t]*\\[/) { s = (x ~ /^[ \\t]*\\[Install\\][ \\t]*$/); if (s) print "@" f } ' +
  'else if (s) { print "|" x; if (x ~ /%/) h = 1; if (x ~ /UpheldBy|%a/) m = 1 } }';

/**
 * The links and the [Install] sections the read compares, in one `find` and one `awk`. awk prints, from its
 * own reads of the files in "$@" (the read's unit files and drop-ins, each once; one it cannot read gives
 * nothing), each [Install] section as `@<path>` and its lines behind a `|`, and the host facts its specifiers
 * name (unit-facts.ts), only when one holds a `%` (or UpheldBy=, %a: the manager's); then each line of `find`,
 * every link one level or two below both roots and the other roots and what it points to, behind an `L`. No
 * line of either can pose as a mark of the read; the rest of a target that holds a line break is no link
 * (unit-links.ts `foundLinks`).
 * Measured with 200 units enabled: these two took 30-35 ms of a 550-720 ms read script (load 3.5 to 7); a `-name`
 * and two `-lname` tests per unit took find alone 650 ms (load 10), as it reads a link again for each `-lname`. The
 * facts (medians of 21, 200 units, the test host at load 25-34, timed inside it): none needed, 263 ms as before;
 * a `%H` in each, 224 ms against 210; an UpheldBy= (its `systemctl show`), 401 ms against 227.
 */
export const LINKS_COMMAND =
  `find ${[LINK_ROOTS.etc, LINK_ROOTS.run, ...OTHER_LINK_ROOTS].join(' ')} ` +
  `-mindepth 1 -maxdepth 2 -type l -printf '%p\\t%l\\n' 2>/dev/null | ` +
  `awk '${FACTS_FUNCTION} ${SECTION_FUNCTION} BEGIN { for (i = 1; i < ARGC; i++) { if (seen[ARGV[i]]++) continue; ` +
  's = 0; j = ""; u = 0; b = 1; while ((getline l < ARGV[i]) > 0) { if (b) sub(/^\\357\\273\\277/, "", l); b = 0; ' +
  'sub(/\\r$/, "", l); n = split(l, q, "\\r"); ' +
  'if (n == 0) { n = 1; q[1] = "" } for (k = 1; k <= n; k++) { t = q[k]; if (t ~ /^[ \\t]*[#;]/) continue; ' +
  'j = j t; if (t ~ /(^|[^\\\\])(\\\\\\\\)*\\\\$/) { sub(/\\\\$/, " ", j); u = 1; continue } ' +
  'w(ARGV[i], j); j = ""; u = 0 } } if (u) w(ARGV[i], j); close(ARGV[i]) } ' +
  `${FACTS_AWK} ARGC = 1 } { print "L" $0 }' "$@"`;

/**
 * LINKS_COMMAND reading the manager's version whatever the host's files say: a declared text names `UpheldBy=`,
 * which enable reads from systemd 254 on, so the plan and the apply judge its enable by the host's version.
 */
export const MANAGER_LINKS_COMMAND = LINKS_COMMAND.replace("| awk '", "| awk -v m=1 '");
