// Jest transform: TypeScript to CommonJS with esbuild. TypeScript 7 has no JS API and ts-jest
// pins typescript <7, so tests never depend on the compiler; `tsc --noEmit` checks types apart.
const { transformSync } = require('esbuild');

module.exports = {
  process(source, path) {
    const { code, map } = transformSync(source, {
      loader: 'ts',
      format: 'cjs',
      target: 'node20',
      sourcemap: 'both',
      sourcefile: path,
      // jest's CommonJS runtime has no dynamic import(); the handler tables load kinds lazily with it.
      supported: { 'dynamic-import': false },
    });
    return { code, map };
  },
};
