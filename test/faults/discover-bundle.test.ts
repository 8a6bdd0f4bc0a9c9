/**
 * The discover bin (build/cli/cdktf-homelab.js) holds the SSH key and the API tokens as the handlers do, so it is
 * held to their rule: it resolves nothing outside itself, where a planted node_modules could run code beside them.
 * And it never overwrites a stack file, which may have been edited since it was written.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPveSimulator } from '../../src/simulator/pve/server';

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

// An audit (2026-12-05): the CLI printed a handler error's message alone, so a 401 named no endpoint.
test('a refused token is said with the endpoint and the request, as a plan says it', async () => {
  const pve = await startPveSimulator({});
  try {
    const env = { ...process.env, PROXMOX_VE_API_TOKEN: 'root@pam!x=00000000-0000-0000-0000-000000000000' };
    // Not spawnSync: this process serves the fake PVE the bin asks.
    const child = spawn('node', [BIN, 'discover', '--out', '-', '--pve-endpoint', pve.url, '--pve-insecure'], { env });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(1);
    expect(stderr).toContain('PVE answered 401');
    expect(stderr).toContain(`Endpoint: ${pve.url}`);
  } finally {
    await pve.stop();
  }
});
