/**
 * Hardening #8: a handler bundle must resolve nothing outside itself. A bare `require("x")` left in
 * a bundle is looked up at run time in every node_modules above the stack folder, where anyone
 * who can write one gets code running as the Terraform user, with its keys and tokens in reach.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { sourceOf } from '../../scripts/handler-code-cache';

const HANDLERS = join(__dirname, '..', '..', 'build', 'handlers');
const builtin = new Set(builtinModules);
/** `node:` specifiers never resolve to node_modules, even for built-ins newer than this Node's list. */
const isBuiltin = (name: string): boolean => name.startsWith('node:') || builtin.has(name);

describe('handler bundles', () => {
  const bundles = readdirSync(HANDLERS).filter((file) => file.endsWith('.js'));

  test('exist for every domain', () => {
    expect(bundles.length).toBeGreaterThanOrEqual(2);
  });

  // Read in the bundle as esbuild wrote it, which its file carries with V8's code cache for it.
  test.each(bundles)('%s requires only Node built-ins', (file) => {
    const text = sourceOf(readFileSync(join(HANDLERS, file), 'utf8'));
    const required = [...text.matchAll(/require\(\s*["'`]([^"'`]+)["'`]\s*\)/g)].map((match) => match[1]);
    expect(required.filter((name) => name === undefined || !isBuiltin(name))).toEqual([]);
  });

  const nativeParts =
    "the Linux bundle still speaks SSH without ssh2's optional native parts " +
    '(proven over real SSH by the contract tests)';
  test(nativeParts, () => {
    const text = sourceOf(readFileSync(join(HANDLERS, 'linux.js'), 'utf8'));
    expect(text).toContain('native addon cpu-features is not bundled');
  });
});
