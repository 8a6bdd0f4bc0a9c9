/**
 * Every environment variable the code reads is in the README's "Environment variables" section, so a user (or a
 * CI author) never has to grep the sources to learn that a variable exists. Fails on a variable read through
 * process.env, an example's env, a `*_ENV` constant or a stack's `...Env` prop that the README does not name.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..');
/** Where variables are read: the library, its handlers, the examples, benchmarks, tests and scripts. */
const SOURCES = ['index.ts', 'jest.config.js', 'src', 'constructs', 'handlers', 'examples', 'bench', 'test', 'scripts'];
/** What every process has; the README need not explain them. */
const GENERIC = new Set(['PATH', 'HOME']);
const NAME = '([A-Z][A-Z0-9_]*)';
const READS = [
  new RegExp(`\\bprocess\\.env\\.${NAME}`, 'g'),
  new RegExp(`\\bprocess\\.env\\[['"]${NAME}['"]\\]`, 'g'),
  new RegExp(`\\benv\\.${NAME}\\b`, 'g'), // `const env = process.env` in the examples, `io.env` in the handlers
  new RegExp(`\\benv\\[['"]${NAME}['"]\\]`, 'g'),
  new RegExp(`_ENV\\s*=\\s*['"]${NAME}['"]`, 'g'), // CORE_ENV = 'CDKTF_HOMELAB_CORE', read as process.env[CORE_ENV]
  new RegExp(`\\bnumber\\(['"]${NAME}['"]\\)`, 'g'), // examples/network.ts reads its numbers through number(name)
  new RegExp(`Env:\\s*['"]${NAME}['"]`, 'g'), // a stack's tokenEnv / privateKeyEnv / otelHeadersEnv
];

const sourceFiles = (path: string): string[] => {
  if (statSync(path).isDirectory()) return readdirSync(path).flatMap((entry) => sourceFiles(join(path, entry)));
  return /\.(ts|js)$/.test(path) ? [path] : [];
};

/** Each variable the sources read, with the first file that reads it. */
const variablesRead = (): Map<string, string> => {
  const found = new Map<string, string>();
  for (const file of SOURCES.flatMap((source) => sourceFiles(join(ROOT, source)))) {
    const text = readFileSync(file, 'utf8');
    // A test's stacks name variables of its own making; only what it reads from its environment counts.
    const test = relative(ROOT, file).startsWith('test/') && !/^test\/(support|fakes)\//.test(relative(ROOT, file));
    for (const pattern of test ? READS.slice(0, 2) : READS) {
      for (const [, name = ''] of text.matchAll(pattern)) {
        if (!GENERIC.has(name) && !found.has(name)) found.set(name, relative(ROOT, file));
      }
    }
  }
  return found;
};

/** The backticked names in the README's "Environment variables" section. */
const documented = (): Set<string> => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = /^## Environment variables\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? '';
  return new Set([...section.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map(([, name = '']) => name));
};

test('every environment variable the code reads is named in the README table', () => {
  const read = variablesRead();
  expect(read.size).toBeGreaterThan(40); // the scan itself works: the examples alone read dozens
  const names = documented();
  const missing = [...read].filter(([name]) => !names.has(name)).map(([name, file]) => `${name} (${file})`);
  expect(missing).toEqual([]);
});

test('the scan finds what a file reads in each way', () => {
  const read = variablesRead();
  for (const name of [
    'CDKTF_HOMELAB_CORE',
    'XDG_RUNTIME_DIR',
    'HOMELAB_EXAMPLE_VLAN_MTU',
    'OTEL_HEADERS',
    'KUBECONFIG',
  ]) {
    expect(read.has(name)).toBe(true);
  }
});
