#!/usr/bin/env node
// Turns a handler bundle (build/handlers/<domain>.js) into one file that carries the bundle's source and V8's code
// cache for it, so a handler process, one per read, batch apply and destroy leader, skips most of compiling its
// bundle. Measured at 3a229b1 on this 2-core machine, 20 starts each, the Linux bundle loading to its usage line: 106
// to 110 ms plain, 84 ms from this file, `node -e 0` 59 ms (the bundle's own cost 47 ms → 25 ms); a cache taken before
// the top level ran saved half of that (94 to 97 ms).
//
// One file, not the bundle beside a cache file: the stack ships each bundle as a one-file asset
// (constructs/core/handler-asset.ts), and a source and its cache written together cannot be paired with another.
// That matters because V8 checks a cache against its source's length only (SerializedCodeData::SourceHash), not its
// content. A cache V8 refuses (another V8 version or other flags: a bundle built on Node 20 and run on Node 24) is
// ignored and the source compiled as before, so the file runs anywhere its plain bundle ran.
//
// `node scripts/handler-code-cache.js <bundle>` rewrites the bundle in place, in a process of its own: the cache is
// taken once the bundle's top level has run, and that top level starts the handler's main, which this process leaves
// by exiting before main reads its input.
const { renameSync, readFileSync, writeFileSync } = require('node:fs');
const { basename, dirname, join } = require('node:path');
const { Script } = require('node:vm');

// Node's own CommonJS wrapper, so the bundle sees what it saw when Node loaded it as a module.
const HEAD = '(function (exports, require, module, __filename, __dirname) { ';
const TAIL = '\n});';
const SOURCE = 'const source = ';

/** The one file: its source as a JSON string on a line of its own (sourceOf reads it back), then the cache. */
const loaderOf = (source, cache) =>
  [
    "'use strict';",
    '// A cdktf-homelab handler bundle (`source`) with V8 code cache for it: scripts/handler-code-cache.js.',
    "const { Script } = require('node:vm');",
    `${SOURCE}${JSON.stringify(source)};`,
    `const cachedData = Buffer.from(${JSON.stringify(cache.toString('base64'))}, 'base64');`,
    `const wrapped = ${JSON.stringify(HEAD)} + source + ${JSON.stringify(TAIL)};`,
    'const script = new Script(wrapped, { filename: __filename, cachedData });',
    'script.runInThisContext()(exports, require, module, __filename, __dirname);',
    '',
  ].join('\n');

/** The bundle's source inside a loader file's text (the tests read what the bundle requires from it). */
const sourceOf = (text) => {
  const line = text.split('\n').find((candidate) => candidate.startsWith(SOURCE));
  if (line === undefined) throw new Error('not a handler loader: no source line');
  return JSON.parse(line.slice(SOURCE.length, -1));
};

const rewrite = (file) => {
  const source = readFileSync(file, 'utf8');
  if (source.includes(`\n${SOURCE}`)) throw new Error(`${file} already carries its code cache`);
  const script = new Script(HEAD + source + TAIL, { filename: file });
  const module = { exports: {} };
  // A batch read, the verb a plan runs: main parses it and waits on stdin, which this process never gives it.
  process.argv = [process.argv[0], file, 'batch', 'read'];
  script.runInThisContext()(module.exports, require, module, file, dirname(file));
  const loader = loaderOf(source, script.createCachedData());
  const temporary = join(dirname(file), `.${basename(file)}.${process.pid}`);
  writeFileSync(temporary, loader);
  renameSync(temporary, file);
  process.exit(0);
};

if (require.main === module) rewrite(process.argv[2]);

module.exports = { loaderOf, sourceOf };
