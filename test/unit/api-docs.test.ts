import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { render, UNDOCUMENTED } = require('../../scripts/api-docs') as { render: () => string; UNDOCUMENTED: string };

test('API.md matches the TSDoc of every export of index.ts (regenerate: npm run docs)', () => {
  expect(readFileSync(join(__dirname, '..', '..', 'API.md'), 'utf8')).toBe(render());
});

test('every export, public member and prop is documented, and every optional prop its default', () => {
  const lines = render().split('\n');
  expect(lines.filter((line) => line.includes(UNDOCUMENTED) || line.includes('(none documented)'))).toEqual([]);
});
