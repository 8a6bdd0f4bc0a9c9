/**
 * The TypeScript or JavaScript text of a discovered stack, from its declarations (the two differ only
 * in how they import: the statements are plain JavaScript either way). Every value goes through
 * `quote` (literal.ts), every name is made valid and unique here, and a reference to a declaration
 * that is not in the stack is refused, so the text always type-checks as what was declared.
 */
import { STACK_ID_CONTEXT } from '../core/stack-id';
import { type Declaration, EnvName, isList, Ref, type Value } from './declaration';
import { commentText, constructId, quote, variableName } from './literal';

export interface RenderOptions {
  /** The stack's construct id. */
  readonly stack: string;
  /**
   * The identity its objects' marks name (src/core/stack-id.ts); the app sets the context
   * `cdktf-homelab:stackId` only when it differs from the stack's construct id, which is the default.
   */
  readonly stackId?: string;
  /** The module the constructs are imported from, e.g. `cdktf-homelab`. */
  readonly from: string;
  /** `ts`: ES imports; `js`: require, so `node main.js` runs it with no compiler. */
  readonly language: 'ts' | 'js';
  /** Lines said at the top (what was read, when). */
  readonly header: readonly string[];
}

/** The variable of each declaration another references, by key. */
type Names = ReadonlyMap<string, string>;

const INDENT = '  ';

/** The whole file: header, imports, one statement per declaration, `app.synth()`. */
export const renderStack = (declarations: readonly Declaration[], options: RenderOptions): string => {
  const names = variablesOf(declarations);
  const ids = new Set<string>();
  const constructs = [...new Set(declarations.map((d) => d.construct))].sort();
  const stackId = constructId(options.stack, new Set());
  const context =
    options.stackId === undefined || options.stackId === stackId
      ? ''
      : `{ context: { ${quote(STACK_ID_CONTEXT)}: ${quote(options.stackId)} } }`;
  return [
    ...options.header.map((line) => `// ${commentText(line)}`),
    ...importLines(['App', 'TerraformStack'], "'cdktf'", options.language),
    ...importLines(constructs, quote(options.from), options.language),
    '',
    `const app = new App(${context});`,
    `const stack = new TerraformStack(app, ${quote(stackId)});`,
    ...declarations.flatMap((declaration) => ['', ...statement(declaration, constructId(declaration.id, ids), names)]),
    '',
    'app.synth();',
    '',
  ].join('\n');
};

const importLines = (names: readonly string[], from: string, language: 'ts' | 'js'): string[] => {
  const [open, close] = language === 'ts' ? ['import {', `} from ${from};`] : ['const {', `} = require(${from});`];
  const line = `${open} ${names.join(', ')} ${close}`;
  return line.length <= 120 ? [line] : [open, ...names.map((name) => `${INDENT}${name},`), close];
};

const variablesOf = (declarations: readonly Declaration[]): Names => {
  const keys = new Set<string>();
  for (const { key } of declarations) {
    if (keys.has(key)) throw new Error(`discover: ${key} was read twice, so it would be declared twice`);
    keys.add(key);
  }
  const referenced = new Set(declarations.flatMap((d) => refsIn(Object.values(d.props))));
  for (const key of referenced) if (!keys.has(key)) throw undeclared(key);
  const variables = new Set(['app', 'stack', 'App', 'TerraformStack', ...declarations.map((d) => d.construct)]);
  return new Map(declarations.filter((d) => referenced.has(d.key)).map((d) => [d.key, variableName(d.id, variables)]));
};

/** A reference to a declaration that is not in the stack is refused. */
const undeclared = (key: string): Error => new Error(`discover: a reference to ${key}, not declared`);

/** The variable of a referenced declaration (variablesOf named each one). */
const variableOf = (key: string, names: Names): string => {
  const variable = names.get(key);
  if (variable === undefined) throw undeclared(key);
  return variable;
};

const refsIn = (values: readonly Value[]): string[] =>
  values.flatMap((value): string[] => {
    if (value instanceof Ref) return [value.key];
    if (value instanceof EnvName || typeof value !== 'object') return [];
    return refsIn(isList(value) ? value : Object.values(value));
  });

const statement = (declaration: Declaration, id: string, names: Names): string[] => {
  const variable = names.get(declaration.key);
  const construct = `new ${declaration.construct}(stack, ${quote(id)}, {`;
  const head = variable === undefined ? construct : `const ${variable} = ${construct}`;
  const props = Object.entries(declaration.props).flatMap(([prop, value]) => property(prop, value, names, 1));
  const note = declaration.note === undefined ? [] : [`// ${commentText(declaration.note)}`];
  return [...note, head, ...props, '});'];
};

/** `key: value,` lines at `depth`, an EnvName's note as a comment above it. */
const property = (key: string, value: Value, names: Names, depth: number): string[] => {
  const indent = INDENT.repeat(depth);
  const note = value instanceof EnvName ? [`${indent}// ${commentText(value.note)}`] : [];
  const [first = '', ...rest] = expression(value, names, depth);
  return [...note, `${indent}${propertyKey(key)}: ${first}${rest.length === 0 ? ',' : ''}`, ...withComma(rest)];
};

const withComma = (lines: string[]): string[] => lines.map((line, i) => (i === lines.length - 1 ? `${line},` : line));

const propertyKey = (key: string): string => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? key : quote(key));

/** A value as one or more lines, the first without indent, the rest at `depth`. */
const expression = (value: Value, names: Names, depth: number): string[] => {
  const indent = INDENT.repeat(depth);
  if (value instanceof Ref) return [variableOf(value.key, names)];
  if (value instanceof EnvName) return [quote(value.name)];
  if (typeof value === 'string') return stringExpression(value, indent);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`discover: a number that is not finite (${value})`);
    return [String(value)];
  }
  if (typeof value === 'boolean') return [String(value)];
  if (isList(value)) {
    const items = value.map((item: Value) => expression(item, names, depth + 1));
    if (items.every((lines) => lines.length === 1) && items.join(', ').length < 80) {
      return [`[${items.map((lines) => lines[0]).join(', ')}]`];
    }
    return [
      '[',
      ...items.flatMap((lines) => withComma(lines).map((line, i) => (i === 0 ? `${indent}${INDENT}${line}` : line))),
      `${indent}]`,
    ];
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return ['{}'];
  return ['{', ...entries.flatMap(([key, item]) => property(key, item, names, depth + 1)), `${indent}}`];
};

/** A text of several lines as one literal per line, joined: a unit file stays readable. */
const stringExpression = (text: string, indent: string): string[] => {
  const lines = text.split('\n');
  if (lines.length < 3) return [quote(text)];
  return ['[', ...lines.map((line) => `${indent}${INDENT}${quote(line)},`), `${indent}].join('\\n')`];
};
