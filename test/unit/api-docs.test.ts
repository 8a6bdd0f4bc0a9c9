import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { render } = require('../../scripts/api-docs') as { render: () => string };

test('API.md matches the TSDoc of the props interfaces (regenerate: node scripts/api-docs.js)', () => {
  expect(readFileSync(join(__dirname, '..', '..', 'API.md'), 'utf8')).toBe(render());
});

test('every optional prop documents its default', () => {
  expect(render()).not.toContain('(none documented)');
});
