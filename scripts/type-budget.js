#!/usr/bin/env node
// `npm run lint`'s type budget (issue 29 item 2): the product code (src, handlers, constructs) holds at most
// BUDGET.casts `as` casts (not `as const`), BUDGET.nonNull non-null assertions `!`, no `any`, and no function longer
// than BUDGET.lines lines. Each cast or `!` is a claim the compiler cannot check; they grew from 56 to 141 casts in a
// day when specs travelled as `unknown` and were parsed twice, so the count is held by a check that fails, not by
// review. Reads the syntax only (no type check): about 1 s on the whole tree (measured, 2 cores).
// `node scripts/type-budget.js --list` prints every counted place.
const { readFileSync } = require('node:fs');
const { execFileSync } = require('node:child_process');
const { join } = require('node:path');
const ts = require('typescript');

const BUDGET = { casts: 30, nonNull: 10, any: 0, lines: 60 };
const root = join(__dirname, '..');
const files = execFileSync(
  'git',
  ['ls-files', '-z', '--cached', '--others', '--exclude-standard', 'src', 'handlers', 'constructs'],
  {
    cwd: root,
    encoding: 'utf8',
  },
)
  .split('\0')
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));

const found = { casts: [], nonNull: [], any: [], lines: [] };
const isFunction = (node) =>
  ts.isFunctionDeclaration(node) ||
  ts.isFunctionExpression(node) ||
  ts.isArrowFunction(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isGetAccessorDeclaration(node);

for (const file of files) {
  let text;
  try {
    text = readFileSync(join(root, file), 'utf8');
  } catch {
    continue; // listed by git, deleted in the working tree
  }
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const at = (node) => `${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
  const visit = (node) => {
    if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) {
      const type = node.type;
      const isConst = ts.isTypeReferenceNode(type) && type.typeName.getText(source) === 'const';
      if (!isConst) found.casts.push(`${at(node)} as ${type.getText(source)}`);
    } else if (ts.isNonNullExpression(node)) {
      found.nonNull.push(`${at(node)} ${node.getText(source).slice(0, 60)}`);
    } else if (node.kind === ts.SyntaxKind.AnyKeyword) {
      found.any.push(at(node));
    } else if (isFunction(node) && node.body !== undefined) {
      const first = source.getLineAndCharacterOfPosition(node.body.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.body.getEnd()).line;
      const lines = last - first + 1;
      if (lines > BUDGET.lines) found.lines.push(`${at(node)} ${lines} lines`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

const over = [];
const report = (key, what) => {
  const count = found[key].length;
  const limit = key === 'lines' ? 0 : BUDGET[key];
  const line = `${what}: ${count} (at most ${limit})`;
  if (count > limit) over.push(key);
  return line;
};
console.log(
  `type budget over ${files.length} files: ${[
    report('casts', '`as` casts'),
    report('nonNull', '`!` assertions'),
    report('any', '`any`'),
    report('lines', `functions over ${BUDGET.lines} lines`),
  ].join('; ')}`,
);
const list = process.argv.includes('--list');
for (const key of list ? Object.keys(found) : over) for (const place of found[key]) console.log(`  ${key}: ${place}`);
if (over.length > 0) process.exit(1);
