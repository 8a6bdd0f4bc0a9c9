/**
 * The test suites' own SSH client to a test host, apart from the handlers' (src/linux/ssh.ts): an ssh2
 * connection that refuses any host key but the pinned one, an exec that fails when
 * the command ends without an exit status, and key pairs made by OpenSSH's ssh-keygen.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { Client } from 'ssh2';
import { fingerprintOf, sameFingerprint } from './ssh-fingerprint';

export interface ExecResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** ssh2 connection that fails unless the server presents the pinned host key. */
export function connectPinned(o: {
  port: number;
  username: string;
  privateKey: string;
  fingerprint: string;
  readyTimeout?: number;
}): Promise<Client> {
  return new Promise((resolve, reject) => {
    const c = new Client();
    c.once('ready', () => {
      c.on('error', () => undefined);
      resolve(c);
    }); // later errors surface via exec()
    // `on`: ssh2 can report one drop twice (ECONNRESET, then "lost before handshake"); a second
    // 'error' with no listener would crash the test run (seen while sshd restarts).
    c.on('error', reject);
    c.connect({
      host: '127.0.0.1',
      port: o.port,
      username: o.username,
      privateKey: o.privateKey,
      readyTimeout: o.readyTimeout ?? 5000,
      hostVerifier: (key: Buffer) => sameFingerprint(fingerprintOf(key), o.fingerprint),
    });
  });
}

export function execOn(c: Client, cmd: string): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    c.exec(cmd, (err, stream) => {
      if (err) return reject(err);
      let stdout = '',
        stderr = '',
        code: number | undefined,
        signal: string | undefined;
      stream.on('data', (d: Buffer) => (stdout += d));
      stream.stderr.on('data', (d: Buffer) => (stderr += d));
      stream.on('exit', (c0: number | null, s?: string) => {
        code = c0 ?? undefined;
        signal = s;
      });
      stream.on('close', () => {
        if (code === undefined) reject(new Error(`ssh exec "${cmd}": no exit status (signal ${signal ?? 'none'})`));
        else resolve({ code, stdout, stderr });
      });
    });
  });
}

/**
 * An ed25519 key pair from OpenSSH's own ssh-keygen. ssh2's generateKeyPairSync drops a leading zero
 * byte of the public key about 1 time in 256, and sshd then refuses the host key at boot.
 */
export function generateKey(file: string): { private: string; public: string } {
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'cdktf-homelab-test', '-f', file], {
    stdio: 'pipe',
  });
  const pair = { private: fs.readFileSync(file, 'utf8'), public: fs.readFileSync(`${file}.pub`, 'utf8').trim() };
  fs.rmSync(file);
  fs.rmSync(`${file}.pub`);
  return pair;
}
