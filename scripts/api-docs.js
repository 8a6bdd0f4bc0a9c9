// Writes API.md from the TSDoc of everything index.ts exports (classes with their public members,
// interfaces with their props and defaults, functions, types and constants), so the documented API
// is the code's own; test/unit/api-docs.test.ts fails when API.md is stale or an export is undocumented.
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const ts = require('typescript');

const root = join(__dirname, '..');
const UNDOCUMENTED = '(undocumented)';

const sourceOf = (file) =>
  ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.ES2022, true);

const oneLine = (text) =>
  text
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\|/g, '\\|')
    .trim();

const summaryOf = (node) =>
  oneLine(
    ts
      .getJSDocCommentsAndTags(node)
      .filter(ts.isJSDoc)
      .map((doc) => ts.getTextOfJSDocComment(doc.comment) ?? '')
      .join(' '),
  ) || UNDOCUMENTED;

const tagOf = (node, name) => {
  const tag = ts.getJSDocTags(node).find((t) => t.tagName.text === name);
  return tag ? oneLine(ts.getTextOfJSDocComment(tag.comment) ?? '') : undefined;
};

const isExported = (node) => (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
const isPublic = (member) =>
  !(ts.getModifiers(member) ?? []).some((m) =>
    [ts.SyntaxKind.PrivateKeyword, ts.SyntaxKind.ProtectedKeyword].includes(m.kind),
  ) && !(member.name && ts.isPrivateIdentifier(member.name));

/** The exported declarations of `file` by name, in file order. */
const declarationsOf = (file) => {
  const source = sourceOf(file);
  const found = [];
  source.forEachChild((node) => {
    if (!isExported(node)) return;
    if (ts.isVariableStatement(node)) {
      for (const decl of node.declarationList.declarations) found.push({ name: decl.name.getText(source), node, decl });
    } else if (node.name) found.push({ name: node.name.text, node });
  });
  return { source, found };
};

const propsTable = (members, source) => {
  const lines = ['| prop | type | default | description |', '| --- | --- | --- | --- |'];
  for (const member of members.filter(ts.isPropertySignature)) {
    const required = member.questionToken === undefined;
    const fallback = required ? 'required' : (tagOf(member, 'default') ?? '(none documented)');
    const type = oneLine(member.type ? member.type.getText(source) : 'unknown');
    lines.push(`| \`${member.name.getText(source)}\` | \`${type}\` | ${fallback} | ${summaryOf(member)} |`);
  }
  return lines;
};

const hasSetter = (node, getter) =>
  node.members.some((m) => ts.isSetAccessorDeclaration(m) && m.name.getText() === getter.name.getText());

const membersTable = (node, source) => {
  const lines = ['| member | signature | description |', '| --- | --- | --- |'];
  for (const member of node.members.filter(isPublic)) {
    if (ts.isConstructorDeclaration(member)) {
      const params = member.parameters.map((p) => p.getText(source)).join(', ');
      const props = member.parameters.at(-1)?.type?.getText(source);
      const doc = summaryOf(member) !== UNDOCUMENTED ? summaryOf(member) : `Declares it in \`scope\`; props: ${props}.`;
      lines.push(`| constructor | \`new ${node.name.text}(${oneLine(params)})\` | ${doc} |`);
    } else if (ts.isMethodDeclaration(member) || ts.isPropertyDeclaration(member)) {
      const text = member
        .getText(source)
        .replace(/\{[\s\S]*$/, '')
        .replace(/;$/, '');
      const signature = oneLine(text.replace(/\/\*\*[\s\S]*?\*\//g, ''));
      lines.push(`| \`${member.name.getText(source)}\` | \`${signature}\` | ${summaryOf(member)} |`);
    } else if (ts.isGetAccessorDeclaration(member) && !hasSetter(node, member)) {
      // A getter alone reads as a readonly property (a construct's members that throw when it built nothing).
      const name = member.name.getText(source);
      const type = member.type === undefined ? 'unknown' : oneLine(member.type.getText(source));
      lines.push(`| \`${name}\` | \`readonly ${name}: ${type}\` | ${summaryOf(member)} |`);
    }
  }
  return lines;
};

// A props interface that extends a kind's declared fields (src/core/fields.ts PropsOf) has props the syntax
// alone cannot list: the type checker expands them, with the doc comments the fields carry. Built once, on demand
// (about 2 s: measured on this tree).
let program;
const checked = () => {
  program ??= ts.createProgram([join(root, 'index.ts')], {
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    types: ['node'],
  });
  return { program, checker: program.getTypeChecker() };
};

// A declared field's default is its declaration's `default` (src/core/fields.ts), read by the type checker, so the
// table shows what the code applies; a doc comment's @default beside it would state it twice, and fails here.
const declaredDefault = (checker, prop) => {
  // A prop a mapped type made (PropsOf) has no value declaration: its first declaration is the field's.
  const declaration = prop.valueDeclaration ?? prop.declarations?.[0];
  if (!declaration || !ts.isPropertyAssignment(declaration)) return undefined;
  const value = checker.getTypeAtLocation(declaration.initializer).getProperty('default');
  if (!value) return undefined;
  const type = checker.getTypeOfSymbolAtLocation(value, declaration);
  if (type.isStringLiteral()) return JSON.stringify(type.value);
  if (type.isNumberLiteral()) return String(type.value);
  const text = checker.typeToString(type);
  if (text === 'true' || text === 'false') return text;
  if (/^(readonly )?\[\]$/.test(text)) return '[]';
  throw new Error(`${prop.name}: api-docs cannot show the declared default ${text}`);
};

const expandedPropsTable = (file, name) => {
  const { program, checker } = checked();
  const declaration = program
    .getSourceFile(join(root, file))
    .statements.find((node) => ts.isInterfaceDeclaration(node) && node.name.text === name);
  const type = checker.getDeclaredTypeOfSymbol(checker.getSymbolAtLocation(declaration.name));
  const lines = ['| prop | type | default | description |', '| --- | --- | --- | --- |'];
  for (const prop of checker.getPropertiesOfType(type)) {
    // A member a class keeps to itself or its subclasses (an interface extending the class inherits it) is no prop.
    const hidden = ts.ModifierFlags.Private | ts.ModifierFlags.Protected;
    if ((prop.declarations ?? []).some((d) => (ts.getCombinedModifierFlags(d) & hidden) !== 0)) continue;
    const required = (prop.flags & ts.SymbolFlags.Optional) === 0;
    const tag = prop.getJsDocTags(checker).find((t) => t.name === 'default');
    const declared = declaredDefault(checker, prop);
    if (declared !== undefined && tag) throw new Error(`${name}.${prop.name}: its default is declared and documented`);
    const documented = tag ? oneLine(ts.displayPartsToString(tag.text)) : '(none documented)';
    const fallback = required ? 'required' : (declared ?? documented);
    const signature = prop.valueDeclaration;
    const typeText =
      signature && ts.isPropertySignature(signature) && signature.type
        ? signature.type.getText()
        : checker.typeToString(checker.getNonNullableType(checker.getTypeOfSymbol(prop)));
    const doc = oneLine(ts.displayPartsToString(prop.getDocumentationComment(checker))) || UNDOCUMENTED;
    lines.push(`| \`${prop.name}\` | \`${oneLine(typeText)}\` | ${fallback} | ${doc} |`);
  }
  return lines;
};

const render1 = ({ name, node, decl }, source) => {
  const head = [`## ${name}`, ''];
  if (ts.isInterfaceDeclaration(node)) {
    const doc = summaryOf(node);
    const intro = doc === UNDOCUMENTED && name.endsWith('Props') ? [] : [doc, ''];
    const table = node.heritageClauses ? expandedPropsTable(source.fileName, name) : propsTable(node.members, source);
    return [...head, ...intro, ...table];
  }
  if (ts.isClassDeclaration(node)) return [...head, summaryOf(node), '', ...membersTable(node, source)];
  const text = (decl ?? node)
    .getText(source)
    .replace(/\s*=>[\s\S]*$/, ' => …')
    .replace(/\{[\s\S]*$/, '');
  return [...head, '`' + oneLine(text) + '`', '', summaryOf(node)];
};

/** Every export of index.ts, in its order: `export *` takes a file's exports, `export { a }` names them. */
const render = () => {
  const index = sourceOf('index.ts');
  const sections = [];
  index.forEachChild((node) => {
    if (!ts.isExportDeclaration(node) || !node.moduleSpecifier) return;
    const file = `${node.moduleSpecifier.text.replace(/^\.\//, '')}.ts`;
    const { source, found } = declarationsOf(file);
    const wanted = node.exportClause ? node.exportClause.elements.map((e) => e.name.text) : undefined;
    for (const entry of found) {
      if (wanted === undefined || wanted.includes(entry.name)) sections.push(render1(entry, source).join('\n'));
    }
  });
  const banner = 'Generated by `node scripts/api-docs.js` from the TSDoc of everything index.ts exports; do not edit.';
  return `# API\n\n${banner}\n\n${sections.join('\n\n')}\n`;
};

if (require.main === module) writeFileSync(join(root, 'API.md'), render());
module.exports = { render, UNDOCUMENTED };
