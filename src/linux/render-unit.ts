/**
 * Sections to unit-file text. Keys and values pass through as written: systemd's own parser is
 * the judge of directives, and a second opinion here would only go stale.
 */

/** One `[Section]` with its `Key=Value` lines, in order; a key may repeat (ExecStartPre=...). */
export interface UnitSection {
  readonly name: string;
  readonly lines: ReadonlyArray<readonly [string, string]>;
}

/** The unit file text, one blank line between sections, ending in a newline. */
export const renderUnit = (sections: readonly UnitSection[]): string => {
  const render = (section: UnitSection) =>
    [`[${section.name}]`, ...section.lines.map(([key, value]) => `${key}=${value}`)].join('\n');
  return `${sections.map(render).join('\n\n')}\n`;
};
