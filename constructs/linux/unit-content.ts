/**
 * What the spec of a unit or a drop-in carries as its content. Sections holding a Terraform value
 * stay sections, so the handler judges the value Terraform substitutes by the rules synth used;
 * sections known in full ship as text, so the spec, and the digest that replaces converge, of a
 * stack stays as it was. Text holding a Terraform value ships as pieces, text and values apart, and
 * the handler judges each value before it joins them: spliced into text as it was, a variable
 * holding a newline added `[Service]` and `ExecStartPre=` lines that ran as root (issue 27).
 */
import type { Problem } from '../../src/core/rules';
import { type UnitContent, unitText } from '../../src/linux/render-unit';
import { hasToken } from '../core/encode';
import { knownText, STRING_TOKEN } from '../core/validate';

/** `content` as the spec carries it (sections `renderUnit` made included). */
export const shippedContent = (content: UnitContent): UnitContent => {
  if (typeof content === 'string') {
    return hasToken(content) ? { pieces: content.split(new RegExp(`(${STRING_TOKEN.source})`)) } : content;
  }
  if ('pieces' in content) return content;
  return hasToken(content) ? content : unitText(content);
};

/**
 * Where text written as text may hold a Terraform value: in a directive's value, after the `=` of
 * its line, where the handler's check (one line, no trailing backslash) keeps it there. Before the
 * `=`, a value would name a section or a directive, which text cannot check: sections can.
 */
export const textValueProblems = (content: unknown): Problem[] => {
  if (typeof content !== 'string' || !hasToken(content)) return [];
  if (knownText(content) === undefined) {
    return [{ prop: 'content', says: 'must hold Terraform values only as strings (Token.asString)' }];
  }
  return content.split('\n').flatMap((line, index) => {
    const value = line.search(STRING_TOKEN);
    const equals = line.indexOf('=');
    return value === -1 || (equals !== -1 && equals < value)
      ? []
      : [
          {
            prop: 'content',
            says:
              `must hold a Terraform value in text only after a directive's "=", got one on line ${index + 1} ` +
              `(${JSON.stringify(line.slice(0, 60))}): put it in sections (renderUnit) to name a section or a key`,
          },
        ];
  });
};
