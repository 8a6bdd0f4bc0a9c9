/**
 * A private key ssh2 cannot read (issue 16, item 3) failed with "Cannot parse privateKey: Unsupported
 * key format", naming neither the host nor the variable. It now names both and the formats that work,
 * and never echoes the key; each format said to work authenticates for real.
 */
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { linuxDomain } from '../../handlers/linux/domain';
import { connectSsh } from '../../src/linux/ssh';
import { parseSshTarget } from '../../src/linux/target';
import { invokeBatch } from '../support/run-handler';
import { answer, KEY_ENV, type SshTestServer, startSshTestServer } from '../support/ssh-test-server';
import { unitSpec } from '../support/unit-host';

const nodeKey = (type: 'rsa' | 'ec' | 'ed25519', encoding: Record<string, string>): string =>
  generateKeyPairSync(type as 'rsa', {
    modulusLength: 2048,
    ...(type === 'ec' ? { namedCurve: 'P-256' } : {}),
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { format: 'pem', ...encoding } as { type: 'pkcs8'; format: 'pem' },
  }).privateKey;
/**
 * OpenSSH keys as users have them: written by ssh-keygen. ssh2's generateKeyPairSync drops a leading zero byte of an
 * ed25519 public key (a 31-byte key that ssh2 itself then calls malformed): 22 of 5000 keys, measured; it failed this
 * file once in CI.
 */
const sshKeygen = (type: 'ed25519' | 'ecdsa' | 'rsa', passphrase = ''): { private: string; public: string } => {
  const dir = mkdtempSync(join(tmpdir(), 'key-format-'));
  try {
    const file = join(dir, 'key');
    execFileSync('ssh-keygen', ['-q', '-t', type, '-N', passphrase, '-C', 'key-format-test', '-f', file]);
    return { private: readFileSync(file, 'utf8'), public: readFileSync(`${file}.pub`, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
const openSsh = {
  ed25519: () => sshKeygen('ed25519').private,
  ecdsa: () => sshKeygen('ecdsa').private,
  rsa: () => sshKeygen('rsa').private,
  encrypted: () => sshKeygen('ed25519', 'secret').private,
};
const encrypted = { cipher: 'aes-128-cbc', passphrase: 'not-in-the-environment' };

let server: SshTestServer;
beforeAll(async () => {
  server = await startSshTestServer((_command, channel) => answer(channel, 'ok\n'));
});
afterAll(() => server.close());

describe('a key ssh2 cannot read fails naming the host, the variable and the formats that work', () => {
  test.each<[string, () => string, RegExp]>([
    ['PKCS#8 ed25519, as openssl genpkey writes it', () => nodeKey('ed25519', { type: 'pkcs8' }), /it is PKCS#8/],
    ['PKCS#8 RSA', () => nodeKey('rsa', { type: 'pkcs8' }), /ssh-keygen -p -N '' -f <file>/],
    ['encrypted PKCS#8', () => nodeKey('rsa', { type: 'pkcs8', ...encrypted }), /it is PKCS#8/],
    ['an encrypted OpenSSH key', openSsh.encrypted, /the key is encrypted/],
    ['an encrypted PEM RSA key', () => nodeKey('rsa', { type: 'pkcs1', ...encrypted }), /the key is encrypted/],
    ['a public key', () => sshKeygen('ed25519').public, /holds a public key, not the private one/],
    ['a key whose line breaks are \\n', () => openSsh.ed25519().replace(/\n/g, '\\n'), /are the two characters \\n/],
    ['text that is no key', () => 'not a key at all', /\(Unsupported key format\)/],
  ])('%s', async (_, makeKey, hint) => {
    const key = makeKey();
    const batch = await invokeBatch(
      linuxDomain(),
      server.target(),
      { u: { kind: 'systemd-unit', spec: unitSpec('k.service', '[Service]\nExecStart=/bin/true\n') } },
      { [KEY_ENV]: key },
    );
    expect(batch.code).toBe(1);
    expect(batch.stderr).toMatch(
      new RegExp(
        `^batch read: SSH private key unreadable: environment variable ${KEY_ENV} holds .*; ` +
          'use an unencrypted OpenSSH key .*ed25519, ecdsa or rsa.* ' +
          `or an unencrypted PEM RSA or EC key .*; Host: root@127\\.0\\.0\\.1:${server.port}$`,
      ),
    );
    expect(batch.stderr).toMatch(hint);
    for (const run of key.match(/[A-Za-z0-9+/=]{12,}/g) ?? []) expect(batch.stderr).not.toContain(run);
    expect(server.commands).toEqual([]);
  });
});

describe('each format the message names authenticates', () => {
  test.each<[string, () => string]>([
    ['OpenSSH ed25519', openSsh.ed25519],
    ['OpenSSH ecdsa', openSsh.ecdsa],
    ['OpenSSH rsa', openSsh.rsa],
    ['PEM RSA (BEGIN RSA PRIVATE KEY)', () => nodeKey('rsa', { type: 'pkcs1' })],
    ['PEM EC (BEGIN EC PRIVATE KEY)', () => nodeKey('ec', { type: 'sec1' })],
  ])('%s', async (_, makeKey) => {
    const remote = await connectSsh(parseSshTarget(server.target()), { [KEY_ENV]: makeKey() });
    try {
      expect((await remote.run('echo ok')).stdout).toBe('ok\n');
    } finally {
      remote.close();
    }
  });
});
