// Lint: typescript-eslint's recommended rules on the sources; prettier owns the layout.
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');

module.exports = tseslint.config(
  { ignores: ['build/', 'dist/', 'cdktf.out/', 'node_modules/', 'test/stand-ins/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // A real limit: strings, template literals, regexes, URLs and comments count too.
    rules: { 'max-len': ['error', { code: 120, tabWidth: 2 }] },
  },
  {
    files: ['**/*.ts'],
    rules: {
      // Control characters are matched on purpose: inputs and remote text are refused or cleaned of them.
      'no-control-regex': 'off',
      // `interface KubeRepoCredential extends PropsOf<typeof FIELDS> {}` names a kind's declared fields (fields.ts):
      // the name is what API.md and a user's editor show instead of the expanded type.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    files: ['**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        process: 'readonly',
        console: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
