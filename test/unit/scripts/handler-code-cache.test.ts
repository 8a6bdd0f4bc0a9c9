/**
 * Each handler process starts from V8's code cache of its bundle (scripts/handler-code-cache.js): the built file must
 * carry a cache this Node accepts, else every read, apply and destroy pays the whole compile again, unnoticed; and a
 * cache V8 refuses (another Node, a corrupt file) must leave the handler working as its plain bundle did.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Script, type ScriptOptions } from 'node:vm';
import { DOMAINS } from '../../../src/core/registry';
import { loaderOf, sourceOf } from '../../../scripts/handler-code-cache';

const HANDLERS = join(__dirname, '..', '..', '..', 'build', 'handlers');
const domains = Object.keys(DOMAINS);
const usageOf = (file: string) => spawnSync(process.execPath, [file, 'no-such-kind', 'read'], { encoding: 'utf8' });

/**
 * Whether V8 takes the cache a built file carries: the file's own code runs, with node:vm's Script watched, and the
 * bundle it compiles is not run (its main would start a handler).
 */
const cacheAccepted = (file: string): boolean => {
  const seen: Script[] = [];
  class Watched extends Script {
    constructor(code: string, options: ScriptOptions) {
      super(code, options);
      seen.push(this);
    }
    override runInThisContext = () => () => undefined;
  }
  const text = readFileSync(file, 'utf8');
  sourceOf(text); // throws for a plain bundle, which would start its handler here
  const loaderRequire = (id: string) => (id === 'node:vm' ? { Script: Watched } : createRequire(file)(id));
  const module = { exports: {} };
  new Function('exports', 'require', 'module', '__filename', '__dirname', text)(
    module.exports,
    loaderRequire,
    module,
    file,
    HANDLERS,
  );
  expect(seen).toHaveLength(1);
  return seen[0]?.cachedDataRejected === false;
};

describe('a handler bundle', () => {
  test.each(domains)('%s carries a code cache this Node accepts', (domain) => {
    expect(cacheAccepted(join(HANDLERS, `${domain}.js`))).toBe(true);
  });

  test.each(domains)('%s runs as its plain bundle does when V8 refuses the cache', (domain) => {
    const dir = mkdtempSync(join(tmpdir(), 'homelab-code-cache-'));
    try {
      const source = sourceOf(readFileSync(join(HANDLERS, `${domain}.js`), 'utf8'));
      writeFileSync(join(dir, 'plain.js'), source);
      writeFileSync(join(dir, 'refused.js'), loaderOf(source, Buffer.from('not a V8 code cache')));
      const plain = usageOf(join(dir, 'plain.js'));
      const refused = usageOf(join(dir, 'refused.js'));
      expect(plain.stderr).toMatch(/usage: </);
      expect([refused.status, refused.stdout, refused.stderr]).toEqual([plain.status, plain.stdout, plain.stderr]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
