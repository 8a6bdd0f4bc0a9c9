/**
 * The paths `systemctl show` lists (FragmentPath, DropInPaths), read as systemd prints them: on systemd 252 a path
 * holding a space, a quote, a backslash, a glob or a control character is double-quoted and escaped (measured for
 * drop-ins named `my override.conf`, `t<TAB>b.conf` and `q'u"o.conf`, each loaded). Split on spaces, such a drop-in
 * was words that are no file: the plan said in sync while the host's drop-in emptied the [Install] of a unit
 * declared enabled, or changed the ExecStart= of a running one, and the apply did nothing (measured). The read's
 * shell and the parse decode it alike, so the files digested are the files systemd loaded.
 */

/**
 * The FragmentPath and DropInPaths of every unit shown, one a line: awk undoes the quoting `show` puts on a path
 * with a space, quote, backslash or control character (`shownPaths`), with no shell in between.
 * A path holding a newline would read as two lines that are no file: `shownPaths` refuses it first.
 */
export const LOADED_PATHS =
  `$(printf '%s\\n' "$s" | LC_ALL=C awk '/^FragmentPath=./ { print substr($0, 14) } /^DropInPaths=/ { ` +
  's = substr($0, 13); o = ""; q = 0; n = length(s); for (i = 1; i <= n; i++) { c = substr(s, i, 1); ' +
  'if (c == "\\"") { q = !q; continue } if (c == " " && !q) { if (o != "") print o; o = ""; continue } ' +
  'if (c == "\\\\" && q) { c = substr(s, ++i, 1); ' +
  'if (c ~ /[0-7]/) { c = sprintf("%c", c * 64 + substr(s, i + 1, 1) * 8 + substr(s, i + 2, 1)); i += 2 } ' +
  'else if (c == "n") c = "\\n"; else if (c == "t") c = "\\t"; else if (c == "r") c = "\\r"; ' +
  'else if (c == "a") c = "\\007"; else if (c == "b") c = "\\b"; else if (c == "f") c = "\\f"; ' +
  'else if (c == "v") c = "\\v" } o = o c } if (o != "") print o }' +
  "')";

/** What a C escape in a quoted word stands for; any other escaped character stands for itself. */
const ESCAPES: Readonly<Record<string, string>> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };

/**
 * A list of paths as `systemctl show` prints it: space-separated, each bare or, when it holds a space, a quote, a
 * backslash, a glob or a control character, double-quoted with `\\`, `\"`, `\$`, `` \` `` and C escapes (`\t`, an
 * octal `\ooo`). Measured on systemd 252 for a drop-in named `my override.conf`, `t<TAB>b.conf` and `q'u"o.conf`,
 * each loaded. Split on spaces, such a path was words that are no file, and the drop-in went unread. A word that is
 * not an absolute path (as a systemd printing paths bare would show a space in one) is refused, never guessed at.
 */
export const shownPaths = (property: string, text: string): string[] => {
  const paths: string[] = [];
  let word: number[] | undefined;
  let quoted = false;
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length; i++) {
    const c = String.fromCharCode(bytes[i] ?? 0);
    if (c === ' ' && !quoted) {
      if (word !== undefined) paths.push(Buffer.from(word).toString('utf8'));
      word = undefined;
      continue;
    }
    word ??= [];
    if (c === '"') quoted = !quoted;
    else if (c !== '\\' || !quoted) word.push(bytes[i] ?? 0);
    else {
      const octal = bytes.subarray(i + 1, i + 4).toString('latin1');
      if (/^[0-7]{3}$/.test(octal)) word.push(parseInt(octal, 8));
      else word.push(...Buffer.from(ESCAPES[String.fromCharCode(bytes[i + 1] ?? 0)] ?? [bytes[i + 1] ?? 0]));
      i += /^[0-7]{3}$/.test(octal) ? 3 : 1;
    }
  }
  if (word !== undefined) paths.push(Buffer.from(word).toString('utf8'));
  if (quoted || paths.some((path) => !path.startsWith('/')))
    throw new Error(
      `systemctl show printed ${property}=${text}, which does not read as absolute paths, each bare or double-quoted ` +
        'as systemd 252 prints them: refusing to guess which files systemd loaded the unit from',
    );
  // The read digests the files it lists one a line (LOADED_PATHS): such a path would read as two that are no file,
  // and the plan said in sync while systemd had loaded it (measured, systemd 252: `a\nb.conf` loaded, unread).
  const split = paths.find((path) => path.includes('\n'));
  if (split !== undefined)
    throw new Error(
      `systemctl show printed ${property}=${text}, and systemd loaded ${JSON.stringify(split)}, whose name holds a ` +
        'newline, which this read cannot digest: refusing to guess what the unit runs (rename that file)',
    );
  return paths;
};
