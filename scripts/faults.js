// `npm run faults -- --rounds N --seed S [--only R]`: runs the fault campaign (test/campaign/main.ts) from its
// TypeScript source, compiled on load by the same esbuild transform jest uses.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const transform = require('../test/support/esbuild-transform');

require.extensions['.ts'] = (module, filename) =>
  module._compile(transform.process(readFileSync(filename, 'utf8'), filename).code, filename);
require(join(__dirname, '..', 'test', 'campaign', 'main.ts'));
