// Loads src/core/registry.ts for the build scripts (plain Node, no TypeScript loader), so the
// bundler and the docs generator read the same kinds registry as the code.
const { join } = require('node:path');
const esbuild = require('esbuild');

const root = join(__dirname, '..');

const loadRegistry = () => {
  const { outputFiles } = esbuild.buildSync({
    entryPoints: [join(root, 'src/core/registry.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    write: false,
  });
  const module = { exports: {} };
  new Function('module', 'exports', outputFiles[0].text)(module, module.exports);
  return module.exports;
};

module.exports = { loadRegistry };
