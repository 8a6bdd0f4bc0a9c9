/**
 * The discover bin (build/cli/cdktf-homelab.js) holds the SSH key and the API tokens as the handlers do, so it is
 * held to their rule: it resolves nothing outside itself, where a planted node_modules could run code beside them.
 * And it never overwrites a stack file, which may have been edited since it was written.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BIN = join(__dirname, '..', '..', 'build', 'cli', 'cdktf-homelab.js');

test('the discover bin requires only Node built-ins and runs as an executable script', () => {
  const text = readFileSync(BIN, 'utf8');
  expect(text.startsWith('#!/usr/bin/env node\n')).toBe(true);
  const required = [...text.matchAll(/require\(\s*["'`]([^"'`]+)["'`]\s*\)/g)].map((match) => match[1] ?? '');
  expect(required.filter((name) => !name.startsWith('node:') && !builtinModules.includes(name))).toEqual([]);
});

test('the discover bin prints its usage, naming every target, and exits 0 on --help', () => {
  const usage = execFileSync('node', [BIN, 'discover', '--help'], { encoding: 'utf8' });
  expect(usage).toMatch(/--pve-endpoint[\s\S]*--ssh-host[\s\S]*--namespace/);
});

test('the discover bin never overwrites an existing stack file, and says so before asking any server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'discover-out-'));
  const out = join(dir, 'main.ts');
  writeFileSync(out, '// edited by hand\n');
  try {
    // Port 1 refuses: a run that reached for the cluster first would fail naming it, not the file.
    execFileSync('node', [BIN, 'discover', '--out', out, '--pve-endpoint', 'https://127.0.0.1:1'], { stdio: 'pipe' });
    throw new Error('discover overwrote the file');
  } catch (error) {
    expect(String((error as { stderr?: Buffer }).stderr)).toContain(
      `${out} exists; choose another --out, or pass --force to replace it`,
    );
  }
  expect(readFileSync(out, 'utf8')).toBe('// edited by hand\n');
  rmSync(dir, { recursive: true, force: true });
});
