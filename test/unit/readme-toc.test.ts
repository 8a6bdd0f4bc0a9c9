/**
 * The README's table of contents (issue 28 item 6: 2,000 lines with none) lists every section, in
 * order, with the anchor GitHub gives its heading, so a section added or renamed cannot drift out of it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const README = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');

/** GitHub's anchor of a heading: lower case, punctuation out, spaces to dashes. */
const anchorOf = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ /g, '-');

test('the contents list every section in order, each linking its heading', () => {
  const sections = [...README.matchAll(/^## (.+)$/gm)]
    .map(([, heading]) => heading ?? '')
    .filter((h) => h !== 'Contents');
  const contents = README.slice(
    README.indexOf('## Contents'),
    README.indexOf('\n## ', README.indexOf('## Contents') + 1),
  );
  const listed = [...contents.matchAll(/^- \[(.+)\]\(#(.+)\)$/gm)].map(([, title, anchor]) => [title, anchor]);
  expect(listed).toEqual(sections.map((heading) => [heading, anchorOf(heading)]));
});

test('Getting started comes first, right after the two commands and what it is', () => {
  const sections = [...README.matchAll(/^## (.+)$/gm)].map(([, heading]) => heading ?? '');
  expect(sections.slice(0, 2)).toEqual(['Contents', 'Getting started']);
  expect(README.indexOf('## Contents')).toBeLessThan(40 * 80);
});
