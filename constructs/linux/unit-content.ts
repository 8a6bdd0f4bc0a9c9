/**
 * What the spec of a unit or a drop-in carries as its content. Sections holding a Terraform value
 * stay sections, so the handler judges the value Terraform substitutes by the rules synth used;
 * sections known in full ship as text, so the spec, and the digest that replaces converge, of a
 * stack stays as it was. Text holding a Terraform value ships as pieces, text and values apart, and
 * the handler judges each value before it joins them: spliced into text as it was, a variable
 * holding a newline added `[Service]` and `ExecStartPre=` lines that ran as root (issue 27).
 */
import type { Problem } from '../../src/core/rules';
import { type UnitContent, unitText, valuePlaceProblems } from '../../src/linux/render-unit';
import { hasToken } from '../core/encode';
import { knownText, STRING_TOKEN } from '../core/validate';

/** Text holding Terraform values as pieces: known text, a value's token, known text, and so on. */
export const textPieces = (text: string): string[] => text.split(new RegExp(`(${STRING_TOKEN.source})`));

/** `content` as the spec carries it (sections `renderUnit` made included). */
export const shippedContent = (content: UnitContent): UnitContent => {
  if (typeof content === 'string') {
    return hasToken(content) ? { pieces: textPieces(content) } : content;
  }
  if ('pieces' in content) return content;
  return hasToken(content) ? content : unitText(content);
};

/**
 * Where text written as text may hold a Terraform value: in a directive's value, after the `=` of
 * its line, where the handler's check (one line, no trailing backslash) keeps it there. Before the
 * `=`, a value would name a section or a directive, which text cannot check: sections can. The rule
 * of the place is the handler's own (`valuePlaceProblems`), so a spec made by hand meets it too.
 */
export const textValueProblems = (content: unknown): Problem[] => {
  if (typeof content !== 'string' || !hasToken(content)) return [];
  if (knownText(content) === undefined) {
    return [{ prop: 'content', says: 'must hold Terraform values only as strings (Token.asString)' }];
  }
  return valuePlaceProblems({ pieces: textPieces(content) }).map((says) => ({ prop: 'content', says }));
};
