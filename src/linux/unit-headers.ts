/**
 * A unit file's section headers as systemd's config_parse holds them: a logical line whose first character past
 * whitespace is `[` must end in `]` once stripped, else systemd refuses the whole file ("Invalid section header",
 * EBADMSG: `[Install] # c` left the unit unloadable, measured on systemd 252). Without this rule such text passed
 * synth, the apply wrote it and failed only once systemd would not load the unit. A header inside a continuation
 * is part of the line it continues (install-settings.ts `numberedLines`), not a header.
 */
import { numberedLines } from './install-settings';
import { LINE_END, shown } from './render-unit';

const STRIP = /^[ \t\n\r]+|[ \t\n\r]+$/g;

const HEADER_RULE =
  'must be a section header alone, "[Name]" with nothing after its "]" ' +
  '(systemd refuses the file: Invalid section header)';

/**
 * Every line of `text` that starts a section header and does not end it, each `line <n> must …, got <line>`;
 * `text` is the file as written, a Terraform value stood in for by a placeholder (a value never stands in a
 * header: render-unit.ts `valuePlaceProblems`).
 */
export const headerProblems = (text: string): string[] =>
  numberedLines(text.replace(/^\uFEFF/, '').split(LINE_END)).flatMap(({ text: line, line: number }) => {
    const stripped = line.replace(STRIP, '');
    return stripped.startsWith('[') && !stripped.endsWith(']')
      ? [`line ${number} ${HEADER_RULE}, got ${shown(stripped)}`]
      : [];
  });
