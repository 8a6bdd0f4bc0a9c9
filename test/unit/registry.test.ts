/**
 * The kinds registry is the one place a kind is declared: every kind's construct declares it, and
 * every domain's built bundle serves exactly its kinds (a kind missing from a handler table would
 * otherwise surface only as a failed plan on a user's machine).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DOMAINS, KINDS, kindFiles, type KindName, kindsOf } from '../../src/core/registry';

const ROOT = join(__dirname, '..', '..');

describe('the kinds registry', () => {
  const kinds = Object.keys(KINDS) as KindName[];

  test.each(kinds)('%s is its definition, handler, construct and props test, named after it', (kind) => {
    const files = kindFiles(kind);
    const propsTest = `test/unit/constructs/${KINDS[kind].domain}/${kind}-props.test.ts`;
    for (const file of [...Object.values(files), propsTest])
      expect(existsSync(join(ROOT, file)) ? file : `${file} missing`).toBe(file);
    expect(readFileSync(join(ROOT, files.construct), 'utf8')).toContain(`kind: '${kind}'`);
  });

  test.each(kinds)('index.ts exports the construct of %s', (kind) => {
    const from = `./${kindFiles(kind).construct.replace(/\.ts$/, '')}`;
    expect(readFileSync(join(ROOT, 'index.ts'), 'utf8')).toContain(`export * from '${from}';`);
  });

  test.each(Object.keys(DOMAINS))('the %s bundle serves exactly the kinds of its domain', (domain) => {
    let usage = '';
    try {
      execFileSync('node', [join(ROOT, 'build', 'handlers', `${domain}.js`), 'no-such-kind', 'read'], {
        stdio: 'pipe',
      });
    } catch (error) {
      usage = String((error as { stderr: Buffer }).stderr);
    }
    const served = /usage: <([^>]*)>/.exec(usage)?.[1]?.split('|') ?? [];
    expect(served.sort()).toEqual(kindsOf(domain as keyof typeof DOMAINS).sort());
  });

  test('every kind belongs to a known domain', () => {
    for (const kind of Object.keys(KINDS) as KindName[]) expect(Object.keys(DOMAINS)).toContain(KINDS[kind].domain);
  });
});
