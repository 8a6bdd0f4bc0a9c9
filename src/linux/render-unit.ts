/**
 * Sections to unit-file text, and the rules that keep every section name, key and value on its own
 * line. A newline in a value, or a trailing backslash that joins the next line to it, would let a
 * value add (or swallow) directives that systemd then runs as root.
 */

/** One `[Section]` with its `Key=Value` lines, in order; a key may repeat (ExecStartPre=...). */
export interface UnitSection {
  /** The section's name, e.g. `Service`, written as `[Service]`. */
  readonly name: string;
  /** Its lines as `[key, value]`, in order; a key may repeat (two `ExecStartPre=`). */
  readonly lines: ReadonlyArray<readonly [string, string]>;
}

/**
 * Text holding Terraform values: `pieces` alternate text known at synth and a value Terraform fills
 * in (`["[Unit]\nDescription=", <value>, "\n"]`). The handler judges each value by `valueProblems`
 * before joining them, so a value can never add a line or a directive (issue 27: a variable holding
 * `x\n[Service]\nExecStartPre=...` ran a command as root).
 */
export interface TextWithValues {
  readonly pieces: readonly string[];
}

/** A unit file as a spec carries it: text, sections whose values Terraform fills in at apply, or text with values. */
export type UnitContent = string | readonly UnitSection[] | TextWithValues;

/** The unit file text, one blank line between sections, ending in a newline: the one renderer. */
export const unitText = (sections: readonly UnitSection[]): string => {
  const render = (section: UnitSection) =>
    [`[${section.name}]`, ...section.lines.map(([key, value]) => `${key}=${value}`)].join('\n');
  return `${sections.map(render).join('\n\n')}\n`;
};

/** The text of `content`, rendering sections by `unitText` and joining text with values. */
export const contentText = (content: UnitContent): string =>
  typeof content === 'string' ? content : 'pieces' in content ? content.pieces.join('') : unitText(content);

/**
 * `sections` as a unit's or drop-in's `content`: a copy, so changing them later changes nothing. The
 * content stays sections until it is rendered once, by `unitText`, at synth or in the handler; as a
 * string (`${...}`, String()) it is that text, for code that used it as text.
 */
export const renderUnit = (sections: readonly UnitSection[]): readonly UnitSection[] => {
  const copy = sections.map(({ name, lines }) => ({ name, lines: lines.map(([key, value]) => [key, value] as const) }));
  const text = unitText(copy);
  return Object.defineProperty(copy, 'toString', { value: () => text, enumerable: false });
};

// systemd ends a line at \n and at \r (measured, systemd 252), and a NUL ends a C string; no other
// control character (tab aside) belongs in a unit file either.
const CONTROL_CHAR = /[\u0000-\u0008\u000a-\u001f\u007f]/;
// An odd run of backslashes at the end of a line joins the next line to it (config_parse in
// systemd's src/shared/conf-parser.c), so a value ending so would swallow the directive after it.
export const CONTINUED = /(^|[^\\])(\\\\)*\\$/;
// Stricter than systemd (which takes any name without quotes, backslashes or control characters)
// so that a name can never close its brackets early; every unit section and X- extension fits.
const SECTION_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
// A key may hold no `=` (the line splits at the first one), nor start a header or a comment.
const KEY = /^[A-Za-z][A-Za-z0-9_-]*$/;

/** A check of a name, key or value: whether the text passes, and the rule it breaks when not. */
type Rule = readonly [(text: string) => boolean, string];

const CONTROL: Rule = [
  (text) => !CONTROL_CHAR.test(text),
  'must not contain a newline, carriage return, NUL or other control character',
];
const SECTION: Rule = [(text) => SECTION_NAME.test(text), 'must be letters, digits, _ and - (Service, X-Mine)'];
const DIRECTIVE: Rule = [
  (text) => KEY.test(text),
  'must be a directive name (a letter, then letters, digits, _ and -)',
];
const ONE_LINE: Rule = [
  (text) => !CONTINUED.test(text),
  'must not end in a backslash (systemd would join the next line to it)',
];

/** Text for a message: escaped, so a newline shows as \n. */
const printable = (text: string): string => JSON.stringify(text).slice(1, -1);

/** A value for a message: escaped and quoted, and cut short. */
export const shown = (text: string): string => {
  const quoted = JSON.stringify(text);
  return quoted.length <= 80 ? quoted : `${quoted.slice(0, 79)}…"`;
};

/**
 * The text of a string to judge, with the parts not known yet (Terraform values at synth) stood in
 * for, or undefined to judge none of it.
 */
export type Known = (text: string) => string | undefined;

/** The first of `rules` that `text` breaks, as `<prop> <rule>, got <text>`; none when it is unknown. */
const problemsOf = (prop: string, text: string, known: Known, rules: readonly Rule[]): string[] => {
  const judged = known(text);
  const broken = judged === undefined ? undefined : rules.find(([passes]) => !passes(judged));
  return broken === undefined ? [] : [`${prop} ${broken[1]}, got ${shown(text)}`];
};

/**
 * Every broken rule of the values of `text` (its odd pieces), each `value <n> must <rule>, got <value>`:
 * one line, no backslash that joins the next line to it, and a place after a directive's `=`
 * (`valuePlaceProblems`).
 */
export const valueProblems = (text: TextWithValues): string[] => [
  ...text.pieces.flatMap((piece, index) =>
    index % 2 === 1 ? problemsOf(`value ${(index + 1) / 2}`, piece, (value) => value, [CONTROL, ONE_LINE]) : [],
  ),
  ...valuePlaceProblems(text),
];

// Where systemd's read_line ends a line: LF, CR, CRLF (once) and NUL.
export const LINE_END = /\r\n|[\n\r\0]/;

/**
 * Every value of `text` that does not stand in a directive's value: the known text before it on its line
 * must hold an `=`, else the value names a directive or a section, where no rule of a value can keep it
 * (a value `ExecStartPre=...` at the start of a line ran as root; checked at synth, and again here for a
 * spec that did not come from synth: an audit, 2026-12-05). Values hold no line end (`CONTROL`).
 */
export const valuePlaceProblems = (text: TextWithValues): string[] => {
  const problems: string[] = [];
  let line = 1;
  let before = '';
  text.pieces.forEach((piece, index) => {
    if (index % 2 === 0) {
      const lines = piece.split(LINE_END);
      line += lines.length - 1;
      before = lines.length === 1 ? before + piece : (lines.at(-1) ?? '');
    } else if (!before.includes('=')) {
      problems.push(
        `value ${(index + 1) / 2} must stand only after a directive's "=" on its line, got one on line ${line} ` +
          `after ${shown(before)}: put it in sections (renderUnit) to name a section or a key`,
      );
    }
  });
  return problems;
};

/**
 * Every broken rule of `sections`, in file order, each `<where> must <rule>, got <value>`. The
 * constructs run it at synth (`known` masking Terraform values), the handlers' spec schema again on
 * the values Terraform substituted.
 */
export const unitSectionProblems = (sections: readonly UnitSection[], known: Known = (text) => text): string[] =>
  sections.flatMap(({ name, lines }) => [
    ...problemsOf('section name', name, known, [CONTROL, SECTION]),
    ...lines.flatMap(([key, value]) => [
      ...problemsOf(`[${printable(name)}] key`, key, known, [CONTROL, DIRECTIVE]),
      ...problemsOf(`[${printable(name)}] ${printable(key)}`, value, known, [CONTROL, ONE_LINE]),
    ]),
  ]);
