/**
 * The lint step's type budget (issue 29 item 2) fails a tree over it: more than 30 `as` casts, more than 10 `!`,
 * any `any`, a function over 60 lines; `as const` is free. Run on a scratch git tree holding the script and
 * one product file, so the check is shown to fail, not only to pass on this tree.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');

const budget = (source: string): { code: number | null; out: string } => {
  const dir = mkdtempSync(join(tmpdir(), 'type-budget-'));
  try {
    mkdirSync(join(dir, 'scripts'));
    mkdirSync(join(dir, 'src'));
    copyFileSync(join(ROOT, 'scripts', 'type-budget.js'), join(dir, 'scripts', 'type-budget.js'));
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    writeFileSync(join(dir, 'src', 'a.ts'), source);
    execFileSync('git', ['init', '-q'], { cwd: dir });
    const run = spawnSync(process.execPath, ['scripts/type-budget.js'], { cwd: dir, encoding: 'utf8' });
    return { code: run.status, out: run.stdout };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

const lines = (count: number, line: (index: number) => string) => Array.from({ length: count }, (_, i) => line(i));

describe('the type budget', () => {
  test('passes 30 casts and 10 `!`, and `as const` is not counted', () => {
    const source = [
      ...lines(30, (i) => `export const c${i} = 1 as number;`),
      ...lines(10, (i) => `export const n${i} = [1][0]!;`),
      ...lines(50, (i) => `export const k${i} = [1] as const;`),
    ].join('\n');
    expect(budget(source)).toMatchObject({ code: 0 });
  });

  test.each([
    ['31 casts', lines(31, (i) => `export const c${i} = 1 as number;`).join('\n'), '`as` casts: 31 (at most 30)'],
    ['11 `!`', lines(11, (i) => `export const n${i} = [1][0]!;`).join('\n'), '`!` assertions: 11 (at most 10)'],
    ['one any', 'export const a: any = 1;', '`any`: 1 (at most 0)'],
    [
      'a function of 61 lines',
      `export const f = () => {\n${lines(59, (i) => `  void ${i};`).join('\n')}\n};`,
      'functions over 60 lines: 1 (at most 0)',
    ],
  ])('fails %s, naming the place', (_what, source, says) => {
    const { code, out } = budget(source);
    expect(code).toBe(1);
    expect(out).toContain(says);
    expect(out).toContain('src/a.ts:');
  });
});
