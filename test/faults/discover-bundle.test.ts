/**
 * The discover bin (build/cli/cdktf-homelab.js) holds the SSH key and the API tokens as the handlers do, so it is
 * held to their rule: it resolves nothing outside itself, where a planted node_modules could run code beside them.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
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
