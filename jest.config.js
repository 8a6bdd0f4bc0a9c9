// Tests run from TypeScript source through esbuild (type-checking is `npm run typecheck`).
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': '<rootDir>/test/support/esbuild-transform.js' },
  testTimeout: 30000,
};
