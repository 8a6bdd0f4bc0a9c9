/**
 * What the spec of a unit or a drop-in carries as its content. Sections holding a Terraform value
 * stay sections, so the handler judges the value Terraform substitutes by the rules synth used;
 * sections known in full ship as text, so the spec, and the digest that replaces converge, of a
 * stack stays as it was.
 */
import { sectionsOf, type UnitContent, unitText } from '../../src/linux/render-unit';
import { hasToken } from '../core/encode';

/** `content` as the spec carries it (sections `renderUnit` rendered included). */
export const shippedContent = (content: UnitContent): UnitContent => {
  const sections = typeof content === 'string' ? sectionsOf(content) : content;
  if (sections === undefined) return content;
  if (hasToken(sections)) return sections;
  return typeof content === 'string' ? content : unitText(sections);
};
