/**
 * The README's Troubleshooting advice for a PKCS#8 key, run as written: `ssh-keygen -p -N '' -f KEY` turns an ECDSA or
 * RSA one into a key the handlers read, and cannot convert an ed25519 one (the README says to make a new key with
 * `ssh-keygen -t ed25519`). Guards against advice that stops working with the OpenSSH or ssh2 the project runs.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keyProblem } from '../../../../src/linux/ssh-key';

const README = readFileSync(join(__dirname, '..', '..', '..', '..', 'README.md'), 'utf8');
const TROUBLESHOOTING = /^## Troubleshooting\n([\s\S]*?)^## /m.exec(README)?.[1] ?? '';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'key-conversion-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A PKCS#8 PEM private key of `type`, as `openssl genpkey` writes one, in a file of its own (mode 0600). */
const pkcs8 = (type: 'ec' | 'rsa' | 'ed25519'): string => {
  const options = { ec: { namedCurve: 'P-256' }, rsa: { modulusLength: 2048 }, ed25519: {} }[type];
  const { privateKey } = generateKeyPairSync(type as 'ec', {
    ...(options as { namedCurve: string }),
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const file = join(dir, `${type}.key`);
  writeFileSync(file, privateKey, { mode: 0o600 });
  return file;
};

test('the README gives the conversion command and the ed25519 way out', () => {
  expect(TROUBLESHOOTING).toContain("`ssh-keygen -p -N '' -f KEY`");
  expect(TROUBLESHOOTING).toContain('`ssh-keygen -t ed25519`');
});

test.each(['ec', 'rsa'] as const)(
  'a PKCS#8 %s key, refused as it is, is read once ssh-keygen -p rewrote it',
  (type) => {
    const file = pkcs8(type);
    expect(keyProblem(readFileSync(file, 'utf8'))).toMatch(/PKCS#8/);
    execFileSync('ssh-keygen', ['-p', '-N', '', '-f', file, '-q'], { stdio: 'ignore', timeout: 30_000 });
    const converted = readFileSync(file, 'utf8');
    expect(converted).toContain('BEGIN OPENSSH PRIVATE KEY');
    expect(keyProblem(converted)).toBeUndefined();
  },
);

test('ssh-keygen -p cannot convert a PKCS#8 ed25519 key, as the README says', () => {
  const file = pkcs8('ed25519');
  const outcome = spawnSync('ssh-keygen', ['-p', '-N', '', '-f', file, '-q'], { encoding: 'utf8', timeout: 30_000 });
  expect(outcome.status).not.toBe(0);
  expect(readFileSync(file, 'utf8')).toContain('BEGIN PRIVATE KEY');
});
